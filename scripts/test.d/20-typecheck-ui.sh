#!/usr/bin/env bash
# The SwiftUI views type-checked against the stub, and broken copies rejected.
set -euo pipefail
exec bash "$(dirname "$0")/../typecheck-ui.sh"
