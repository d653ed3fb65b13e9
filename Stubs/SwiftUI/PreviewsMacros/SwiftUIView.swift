// The stub's implementation of `#Preview`, built by scripts/typecheck-ui.sh as a
// compiler plugin library. It expands to no declarations: the type-check only
// needs the macro's arguments, which the compiler checks before expanding.

import SwiftSyntax
import SwiftSyntaxMacros

/// Expands `#Preview { … }` to nothing.
public struct SwiftUIView: DeclarationMacro {
    /// Returns no declarations.
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
