import Foundation

/// An attribute of an entity: a named value of one ``AttributeType`` (Core Data's
/// `NSAttributeDescription`).
///
/// ```swift
/// AttributeDescription(name: "age", type: .integer16, isOptional: false, defaultValue: 0)
/// ```
/// Configure it before the model is used; read it from any queue.
public final class AttributeDescription: PropertyDescription, @unchecked Sendable {
    private var _type: AttributeType
    private var _defaultValue: (any Sendable)?
    private var _valueTransformerName: String?
    private var _minValue: (any Sendable)?
    private var _maxValue: (any Sendable)?
    private var _minLength: Int?
    private var _maxLength: Int?
    private var _regularExpression: String?
    private var _allowsExternalBinaryDataStorage = false
    private var _preservesValueInHistoryOnDeletion = false
    private var _derivationExpression: String?

    /// Creates an attribute. `isOptional` defaults to true, as in Core Data.
    public init(name: String, type: AttributeType, isOptional: Bool = true, defaultValue: (any Sendable)? = nil) {
        self._type = type
        self._defaultValue = defaultValue
        super.init(name: name, isOptional: isOptional)
    }

    /// The type of the attribute's values.
    public var type: AttributeType {
        get { _type }
        set { mutate("type") { _type = newValue } }
    }

    /// The value a newly inserted object starts with (converted to the attribute's type).
    public var defaultValue: (any Sendable)? {
        get { _defaultValue }
        set { mutate("defaultValue") { _defaultValue = newValue } }
    }

    /// For `transformable` attributes: the name the transformer was registered under with
    /// ``AttributeValueTransformers/register(_:forName:)``. `nil` uses the property-list
    /// transformer (``AttributeValueTransformers/propertyListTransformerName``).
    public var valueTransformerName: String? {
        get { _valueTransformerName }
        set { mutate("valueTransformerName") { _valueTransformerName = newValue } }
    }

    /// Smallest allowed value (numbers and dates), checked at save.
    public var minValue: (any Sendable)? {
        get { _minValue }
        set { mutate("minValue") { _minValue = newValue } }
    }

    /// Largest allowed value (numbers and dates), checked at save.
    public var maxValue: (any Sendable)? {
        get { _maxValue }
        set { mutate("maxValue") { _maxValue = newValue } }
    }

    /// Smallest allowed length in characters (strings) or bytes (binary data), checked at save.
    public var minLength: Int? {
        get { _minLength }
        set { mutate("minLength") { _minLength = newValue } }
    }

    /// Largest allowed length in characters (strings) or bytes (binary data), checked at save.
    public var maxLength: Int? {
        get { _maxLength }
        set { mutate("maxLength") { _maxLength = newValue } }
    }

    /// A regular expression (NSRegularExpression syntax) the whole string must match at save.
    public var regularExpression: String? {
        get { _regularExpression }
        set { mutate("regularExpression") { _regularExpression = newValue } }
    }

    /// Whether large values may live in files beside the store (Core Data's "Allows External
    /// Storage"). Read from model files and kept, but not yet acted on: Strata stores every
    /// value in the row (see docs/models-and-migration.md, "External binary storage").
    public var allowsExternalBinaryDataStorage: Bool {
        get { _allowsExternalBinaryDataStorage }
        set { mutate("allowsExternalBinaryDataStorage") { _allowsExternalBinaryDataStorage = newValue } }
    }

    /// Whether a deletion recorded in the persistent history keeps the attribute's last value in
    /// the change's ``PersistentHistoryChange/tombstone`` (Core Data's
    /// `preservesValueInHistoryOnDeletion`; default false). Not part of the version hash: turning
    /// it on needs no migration. Set before the model is used.
    public var preservesValueInHistoryOnDeletion: Bool {
        get { _preservesValueInHistoryOnDeletion }
        set { mutate("preservesValueInHistoryOnDeletion") { _preservesValueInHistoryOnDeletion = newValue } }
    }

    /// For a derived attribute (Core Data's `NSDerivedAttributeDescription`, Xcode's `derived`
    /// attributes): the expression its value is derived from, as written in the model file
    /// (for example `tags.@count` or `now()`). Strata keeps it but does not evaluate it: a
    /// derived attribute is stored and saved like any other attribute. Not part of the version
    /// hash. Set before the model is used; read from any queue.
    public var derivationExpression: String? {
        get { _derivationExpression }
        set { mutate("derivationExpression") { _derivationExpression = newValue } }
    }

    /// Whether the attribute is derived (it has a ``derivationExpression``). Any queue.
    public var isDerived: Bool { _derivationExpression != nil }

    /// Whether the attribute has value rules of its own (range, length, pattern).
    var hasValueRules: Bool {
        _minValue != nil || _maxValue != nil || _minLength != nil || _maxLength != nil || _regularExpression != nil
    }

    /// The name of the Swift type of the attribute's values (Core Data's `attributeValueClassName`).
    public var attributeValueClassName: String? { _type.valueTypeName }

    override func appendVersionHashInputs(to hash: inout StableHash) {
        super.appendVersionHashInputs(to: &hash)
        hash.combine(_type.rawValue)
    }
}
