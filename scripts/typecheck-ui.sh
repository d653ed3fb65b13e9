#!/usr/bin/env bash
# Type-checks the SwiftUI views (Sources/OTPUI) and the example app on Linux.
#
# SwiftUI and UIKit do not exist on Linux, so the views are checked against
# stub modules named UIKit (Stubs/UIKit) and SwiftUI (Stubs/SwiftUI, which
# imports the UIKit stub) whose declarations are copied from Apple's
# documentation. With both stubs, code inside `#if canImport(UIKit)` is
# type-checked too:
#   1. build OTPCore, the UIKit stub, the SwiftUI stub and the #Preview macro
#      plugin;
#   2. check that OTPUI compiles to nothing without SwiftUI (the Linux build);
#   3. type-check every OTPUI source against the stubs, in Swift 6 mode,
#      warnings as errors, #Previews included;
#   4. type-check the example app against OTPUI, OTPClient and the stubs, then
#      build OTPKit (the one-import umbrella) and type-check an app that imports
#      it alone and reaches the kit's types qualified (OTPCore.Verification);
#   5. show the check bites: apply each mutation in Tests/UITypecheck/broken
#      to a copy of a real view file and require the type-check to reject it
#      with the expected diagnostic.
# Exits non-zero on any failure. Needs only the Swift toolchain.
#
# TYPECHECK_UI_MODULES_OUT=<dir> copies the built stub modules, OTPCore and the
# #Preview plugin there after step 1, to type-check other files against them:
#   swiftc -typecheck -swift-version 6 -parse-as-library -I <dir> \
#       -load-plugin-library <dir>/libPreviewsMacros.so File.swift
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

command -v swiftc >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
swiftc=${SWIFTC:-swiftc}
jobs=${TYPECHECK_UI_JOBS:-2}
toolchain_usr=$(cd "$(dirname "$(command -v "$swiftc")")/.." && pwd)
host_libs="$toolchain_usr/lib/swift/host"
work=$(mktemp -d "${TMPDIR:-/tmp}/typecheck-ui.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
started=$(date +%s%N)

say() { printf 'typecheck-ui: %s\n' "$*"; }
fail() {
    printf 'typecheck-ui: FAIL: %s\n' "$*" >&2
    exit 1
}
elapsed() {
    local ms=$((($(date +%s%N) - started) / 1000000))
    printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100))
}

# Runs a compiler step quietly; on failure prints its output and stops.
step() {
    local what=$1
    shift
    if ! "$@" >"$work/step.log" 2>&1; then
        cat "$work/step.log" >&2
        fail "$what"
    fi
}

mapfile -t stub_files < <(find Stubs/SwiftUI -maxdepth 1 -name '*.swift' | sort)
mapfile -t uikit_stub_files < <(find Stubs/UIKit -maxdepth 1 -name '*.swift' | sort)
mapfile -t core_sources < <(find Sources/OTPCore -name '*.swift' | sort)
mapfile -t ui_sources < <(find Sources/OTPUI -name '*.swift' | sort)
mapfile -t client_sources < <(find Sources/OTPClient -name '*.swift' 2>/dev/null | sort)
mapfile -t example_sources < <(find Examples -name '*.swift' 2>/dev/null | sort)
[ ${#ui_sources[@]} -gt 0 ] || fail "no sources in Sources/OTPUI"
[ ${#uikit_stub_files[@]} -gt 0 ] || fail "no sources in Stubs/UIKit"

# Every OTPUI file must be wholly inside `#if canImport(SwiftUI)`, so the module is empty on Linux.
for file in "${ui_sources[@]}"; do
    first=$(awk 'NF && $1 !~ /^\/\// { print; exit }' "$file")
    last=$(awk 'NF { line = $0 } END { print line }' "$file")
    [ "$first" = "#if canImport(SwiftUI)" ] && [ "$last" = "#endif" ] ||
        fail "$file is not wholly inside #if canImport(SwiftUI) ... #endif"
done

# 1. Modules: OTPCore, and (in parallel) the #Preview plugin, the UIKit stub and
#    the SwiftUI stub, which imports the UIKit stub (so both land in $work/ui,
#    which steps 3 to 5 search and step 2 does not). The UIKit stub is built with
#    library evolution so that its enums, like UIKit's NS_ENUMs, are not frozen:
#    a switch over one needs `@unknown default`, as on iOS. (Its log then warns
#    that Foundation was built without library evolution; nothing ever links it.)
mkdir -p "$work/core" "$work/ui"
plugin=(-load-plugin-library "$work/libPreviewsMacros.so")
build_stub() {
    "$swiftc" -emit-library -module-name PreviewsMacros -I "$host_libs" -L "$host_libs" -lSwiftSyntax \
        -lSwiftSyntaxMacros Stubs/SwiftUI/PreviewsMacros/SwiftUIView.swift -o "$work/libPreviewsMacros.so" &&
        "$swiftc" -emit-module -wmo -module-name UIKit -swift-version 6 -parse-as-library -enable-library-evolution \
            "${uikit_stub_files[@]}" -emit-module-path "$work/ui/UIKit.swiftmodule" &&
        "$swiftc" -emit-module -wmo -module-name SwiftUI -swift-version 6 -parse-as-library -I "$work/ui" \
            "${plugin[@]}" Stubs/SwiftUI/*.swift -emit-module-path "$work/ui/SwiftUI.swiftmodule"
}
build_stub >"$work/stub.log" 2>&1 &
stub_job=$!
step "build OTPCore" "$swiftc" -emit-module -wmo -module-name OTPCore -package-name OTPKit -swift-version 6 -parse-as-library \
    "${core_sources[@]}" -emit-module-path "$work/core/OTPCore.swiftmodule"
wait "$stub_job" || {
    cat "$work/stub.log" >&2
    fail "build the UIKit and SwiftUI stubs and the #Preview plugin"
}
cp "$work"/core/OTPCore.swiftmodule "$work/ui/"
say "built OTPCore (${#core_sources[@]} files), the UIKit stub (${#uikit_stub_files[@]} files)," \
    "the SwiftUI stub (${#stub_files[@]} files) and the #Preview plugin"
if [ -n "${TYPECHECK_UI_MODULES_OUT:-}" ]; then
    mkdir -p "$TYPECHECK_UI_MODULES_OUT"
    cp "$work"/ui/*.swiftmodule "$work/libPreviewsMacros.so" "$TYPECHECK_UI_MODULES_OUT/"
    say "copied the stub modules, OTPCore and the #Preview plugin to $TYPECHECK_UI_MODULES_OUT"
fi

# 2. Without SwiftUI or UIKit (as on Linux) OTPUI must compile to nothing: only OTPCore is on the path.
step "OTPUI without SwiftUI" "$swiftc" -typecheck -wmo -package-name OTPKit -swift-version 6 -parse-as-library -I "$work/core" \
    "${ui_sources[@]}"

# 3. OTPUI against the stubs; building its module type-checks every body.
typecheck_ui() {
    "$swiftc" -typecheck -wmo -swift-version 6 -parse-as-library -warnings-as-errors -I "$work/ui" "${plugin[@]}" "$@"
}
step "type-check OTPUI" "$swiftc" -emit-module -wmo -module-name OTPUI -package-name OTPKit -swift-version 6 -parse-as-library \
    -warnings-as-errors -I "$work/ui" "${plugin[@]}" "${ui_sources[@]}" -emit-module-path "$work/ui/OTPUI.swiftmodule"
say "OTPUI: ${#ui_sources[@]} files type-checked against the stubs, no errors or warnings"

# 4. The example app, against OTPUI, OTPClient and the stubs.
if [ ${#example_sources[@]} -gt 0 ]; then
    if [ ${#client_sources[@]} -gt 0 ]; then
        step "build OTPClient" "$swiftc" -emit-module -wmo -module-name OTPClient -package-name OTPKit -swift-version 6 -parse-as-library \
            -I "$work/core" "${client_sources[@]}" -emit-module-path "$work/ui/OTPClient.swiftmodule"
    fi
    step "type-check Examples" typecheck_ui "${example_sources[@]}"
    say "Examples: ${#example_sources[@]} files type-checked against OTPUI, OTPClient and the stubs"
fi

# 4b. The umbrella: OTPKit re-exports OTPCore, OTPUI and OTPClient, and an app with types of its
#     own named like the kit's reaches the kit's qualified (Tests/UITypecheck/umbrella).
mapfile -t kit_sources < <(find Sources/OTPKit -name '*.swift' 2>/dev/null | sort)
mapfile -t umbrella_sources < <(find Tests/UITypecheck/umbrella -name '*.swift' 2>/dev/null | sort)
if [ ${#kit_sources[@]} -gt 0 ]; then
    [ -f "$work/ui/OTPClient.swiftmodule" ] ||
        step "build OTPClient" "$swiftc" -emit-module -wmo -module-name OTPClient -package-name OTPKit -swift-version 6 \
            -parse-as-library -I "$work/core" "${client_sources[@]}" -emit-module-path "$work/ui/OTPClient.swiftmodule"
    step "build OTPKit" "$swiftc" -emit-module -wmo -module-name OTPKit -swift-version 6 -parse-as-library \
        -warnings-as-errors -I "$work/ui" "${plugin[@]}" "${kit_sources[@]}" \
        -emit-module-path "$work/ui/OTPKit.swiftmodule"
    if [ ${#umbrella_sources[@]} -gt 0 ]; then
        step "type-check an app importing OTPKit" typecheck_ui "${umbrella_sources[@]}"
    fi
    say "OTPKit: re-exports OTPCore, OTPUI and OTPClient; ${#umbrella_sources[@]} app file(s) type-checked with it"
fi

# 5. Broken copies must be rejected, for the expected reason. Each copy is the
#    real file with one sed edit; the whole module is checked with it swapped in.
mutations=(Tests/UITypecheck/broken/*.mutation)
[ -e "${mutations[0]}" ] || fail "no mutations in Tests/UITypecheck/broken"
check_broken() {
    local name=$1 target=$2 copy=$3 sources=() file
    for file in "${ui_sources[@]}"; do
        [ "$file" = "$target" ] && sources+=("$copy") || sources+=("$file")
    done
    ! typecheck_ui "${sources[@]}" >"$work/broken/$name.log" 2>&1
}
mkdir -p "$work/broken"
names=()
running=0
for mutation in "${mutations[@]}"; do
    name=$(basename "$mutation" .mutation)
    target=$(sed -n 's/^file: //p' "$mutation")
    expression=$(sed -n 's/^sed: //p' "$mutation")
    expect=$(sed -n 's/^expect: //p' "$mutation")
    [ -n "$target" ] && [ -n "$expression" ] && [ -n "$expect" ] || fail "$mutation needs file:, sed: and expect:"
    [ -f "$target" ] || fail "$name: $target does not exist"
    mkdir -p "$work/broken/$name"
    copy="$work/broken/$name/$(basename "$target")"
    sed -e "$expression" "$target" >"$copy"
    cmp -s "$target" "$copy" && fail "$name: the sed expression no longer matches $target; update $mutation"
    printf '%s\n%s\n' "$target" "$expect" >"$work/broken/$name.info"
    check_broken "$name" "$target" "$copy" &
    echo $! >"$work/broken/$name.pid"
    names+=("$name")
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
rejected=0
for name in "${names[@]}"; do
    target=$(sed -n 1p "$work/broken/$name.info")
    expect=$(sed -n 2p "$work/broken/$name.info")
    wait "$(cat "$work/broken/$name.pid")" 2>/dev/null || true
    log="$work/broken/$name.log"
    grep -q 'error:' "$log" || fail "$name: the broken copy of $target type-checked; the check does not catch it"
    grep -q -F -- "$expect" "$log" || {
        cat "$log" >&2
        fail "$name: rejected, but without the expected diagnostic \"$expect\""
    }
    say "  rejected $name: $(awk '/error:/ { sub(/.*error: /, ""); print; exit }' "$log")"
    rejected=$((rejected + 1))
done
say "broken copies rejected: $rejected of ${#mutations[@]}"
say "OK ($(elapsed))"
