// Accessibility modifiers, traits and announcements.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Every modifier returns the view unchanged: the module is only
// type-checked, never run.

import Foundation

/// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilityattachmentmodifier>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct AccessibilityAttachmentModifier: ViewModifier {}

/// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilitychildbehavior>.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public struct AccessibilityChildBehavior: Hashable, Sendable {
    private let id: Int
    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilitychildbehavior/ignore>.
    public static let ignore = AccessibilityChildBehavior(id: 0)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilitychildbehavior/contain>.
    public static let contain = AccessibilityChildBehavior(id: 1)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilitychildbehavior/combine>.
    public static let combine = AccessibilityChildBehavior(id: 2)
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilitytraits>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct AccessibilityTraits: SetAlgebra, Sendable {
    private var bits: Set<Int>

    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilitytraits/isbutton>.
    public static let isButton = AccessibilityTraits(bits: [0])
    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilitytraits/isstatictext>.
    public static let isStaticText = AccessibilityTraits(bits: [1])
    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilitytraits/updatesfrequently>.
    public static let updatesFrequently = AccessibilityTraits(bits: [2])
    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilitytraits/isheader>.
    public static let isHeader = AccessibilityTraits(bits: [3])

    private init(bits: Set<Int>) { self.bits = bits }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilitytraits/init()>.
    public init() { bits = [] }

    public func union(_ other: AccessibilityTraits) -> AccessibilityTraits {
        .init(bits: bits.union(other.bits))
    }
    public func intersection(_ other: AccessibilityTraits) -> AccessibilityTraits {
        .init(bits: bits.intersection(other.bits))
    }
    public func symmetricDifference(_ other: AccessibilityTraits) -> AccessibilityTraits {
        .init(bits: bits.symmetricDifference(other.bits))
    }
    public func contains(_ member: AccessibilityTraits) -> Bool { member.bits.isSubset(of: bits) }
    public mutating func insert(
        _ newMember: AccessibilityTraits
    ) -> (inserted: Bool, memberAfterInsert: AccessibilityTraits) {
        let inserted = !contains(newMember)
        bits.formUnion(newMember.bits)
        return (inserted, newMember)
    }
    public mutating func remove(_ member: AccessibilityTraits) -> AccessibilityTraits? {
        guard contains(member) else { return nil }
        bits.subtract(member.bits)
        return member
    }
    public mutating func update(with newMember: AccessibilityTraits) -> AccessibilityTraits? {
        bits.formUnion(newMember.bits)
        return newMember
    }
    public mutating func formUnion(_ other: AccessibilityTraits) { bits.formUnion(other.bits) }
    public mutating func formIntersection(_ other: AccessibilityTraits) { bits.formIntersection(other.bits) }
    public mutating func formSymmetricDifference(_ other: AccessibilityTraits) {
        bits.formSymmetricDifference(other.bits)
    }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/accessibilityelement(children:)>.
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    nonisolated public func accessibilityElement(children: AccessibilityChildBehavior = .ignore) -> some View
    { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/accessibilitylabel(_:)>.
    // (the `Text` overload)
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    nonisolated public func accessibilityLabel(
        _ label: Text
    ) -> ModifiedContent<Self, AccessibilityAttachmentModifier> {
        ModifiedContent(content: self, modifier: AccessibilityAttachmentModifier())
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/accessibilityvalue(_:)-z9mo>.
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    nonisolated public func accessibilityValue(
        _ valueDescription: Text
    )
        -> ModifiedContent<Self, AccessibilityAttachmentModifier>
    {
        ModifiedContent(content: self, modifier: AccessibilityAttachmentModifier())
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/accessibilityhint(_:)>.
    // (the `Text` overload)
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    nonisolated public func accessibilityHint(
        _ hint: Text
    ) -> ModifiedContent<Self, AccessibilityAttachmentModifier> {
        ModifiedContent(content: self, modifier: AccessibilityAttachmentModifier())
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/accessibilityaddtraits(_:)>.
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    nonisolated public func accessibilityAddTraits(
        _ traits: AccessibilityTraits
    )
        -> ModifiedContent<Self, AccessibilityAttachmentModifier>
    {
        ModifiedContent(content: self, modifier: AccessibilityAttachmentModifier())
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/accessibilityhidden(_:)>.
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    nonisolated public func accessibilityHidden(
        _ hidden: Bool
    ) -> ModifiedContent<Self, AccessibilityAttachmentModifier> {
        ModifiedContent(content: self, modifier: AccessibilityAttachmentModifier())
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/accessibilityfocused(_:)>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    nonisolated public func accessibilityFocused(
        _ condition: AccessibilityFocusState<Bool>.Binding
    ) -> some View {
        self
    }
}

/// Declared as on <https://developer.apple.com/documentation/accessibility/accessibilitynotification>.
// `AccessibilityNotification` lives in the Accessibility framework, which SwiftUI re-exports.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
public enum AccessibilityNotification {
    /// Declared as on <https://developer.apple.com/documentation/accessibility/accessibilitynotification/announcement>.
    public struct Announcement {
        private let text: String

        /// Declared as on <https://developer.apple.com/documentation/accessibility/accessibilitynotification/announcement/init(_:)>.
        // (the `String` overload)
        public init(_ announcement: String) { text = announcement }

        /// Declared as on <https://developer.apple.com/documentation/accessibility/accessibilitynotification/announcement>.
        // (the `AttributedString` overload of `init(_:)`: the page's Overview names `AttributedString` as an
        // announcement value whose speech attributes, such as `accessibilitySpeechAnnouncementPriority`, set
        // how it is spoken. The stored documentation has no page of its own for this overload; its sibling
        // is .../announcement/init(_:)-46byj, `init(_ announcement: NSAttributedString)`, iOS 17, macOS 14.)
        public init(_ announcement: AttributedString) { text = String(announcement.characters) }

        /// Declared as on <https://developer.apple.com/documentation/accessibility/accessibilitynotification/announcement/post()>.
        public func post() {}
    }
}

/// Declared as on <https://developer.apple.com/documentation/foundation/attributescopes/accessibilityattributes>.
// Declared in Foundation on Apple platforms (with the `AttributeScope` conformance and the attribute
// properties, which the project does not use); only the announcement priority key is declared here.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
extension AttributeScopes {
    public struct AccessibilityAttributes {
        /// Declared as on <https://developer.apple.com/documentation/foundation/attributescopes/accessibilityattributes/announcementpriorityattribute>.
        // The key of https://developer.apple.com/documentation/foundation/attributescopes/accessibilityattributes/accessibilityspeechannouncementpriority
        @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
        public enum AnnouncementPriorityAttribute: AttributedStringKey {
            public typealias Value = AnnouncementPriority

            // The `AttributedStringKey` requirement (https://developer.apple.com/documentation/foundation/attributedstringkey);
            // the value is the stub's own.
            public static let name = "AnnouncementPriority"

            /// Declared as on <https://developer.apple.com/documentation/foundation/attributescopes/accessibilityattributes/announcementpriorityattribute/announcementpriority>.
            public enum AnnouncementPriority: Hashable, Sendable {
                /// Declared as on <https://developer.apple.com/documentation/foundation/attributescopes/accessibilityattributes/announcementpriorityattribute/announcementpriority/default>.
                case `default`
                /// Declared as on <https://developer.apple.com/documentation/foundation/attributescopes/accessibilityattributes/announcementpriorityattribute/announcementpriority/high>.
                case high
                /// Declared as on <https://developer.apple.com/documentation/foundation/attributescopes/accessibilityattributes/announcementpriorityattribute/announcementpriority/low>.
                case low
            }
        }
    }
}
