//! The one macro that defines a vocabulary enum.

/// Defines an enum of words: each variant with its text, which is at once the value
/// stored in SQL, the serde form and the exported text.
///
/// The enum gets `Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize,
/// Deserialize`, and:
/// - `ALL`: every variant in declaration order (an array),
/// - `as_str` and [`Display`](std::fmt::Display): the text,
/// - `parse` and [`FromStr`](std::str::FromStr) (error [`UnknownWord`](crate::UnknownWord)):
///   the variant a text names,
/// - the [`Words`](crate::Words) trait.
///
/// Attributes before the enum and before each variant are kept (`#[derive(Default)]` with
/// `#[default]`, `#[serde(other)]`).
///
/// ```
/// vocab::words! {
///     /// A colour.
///     pub enum Colour {
///         /// Red.
///         Red = "red",
///         /// Dark blue.
///         DarkBlue = "dark_blue",
///     }
/// }
/// assert_eq!(Colour::DarkBlue.as_str(), "dark_blue");
/// assert_eq!(Colour::parse("red"), Some(Colour::Red));
/// assert_eq!(Colour::ALL, [Colour::Red, Colour::DarkBlue]);
/// assert_eq!(serde_json::to_string(&Colour::DarkBlue).unwrap(), "\"dark_blue\"");
/// ```
#[macro_export]
macro_rules! words {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            $crate::serde::Serialize, $crate::serde::Deserialize,
        )]
        #[serde(crate = "vocab::serde")]
        $vis enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant),+];

            /// The text: the stored, serialized and exported form.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text),+
                }
            }

            /// The variant a text names.
            pub fn parse(text: &str) -> ::core::option::Option<Self> {
                match text {
                    $($text => ::core::option::Option::Some(Self::$variant),)+
                    _ => ::core::option::Option::None,
                }
            }
        }

        impl $crate::Words for $name {
            const ALL: &'static [Self] = &$name::ALL;

            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }

            fn parse(text: &str) -> ::core::option::Option<Self> {
                $name::parse(text)
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::core::str::FromStr for $name {
            type Err = $crate::UnknownWord;

            fn from_str(text: &str) -> ::core::result::Result<Self, $crate::UnknownWord> {
                Self::parse(text).ok_or_else(|| $crate::UnknownWord {
                    kind: ::core::stringify!($name),
                    text: text.into(),
                })
            }
        }
    };
}

/// A text that names no variant of a vocabulary enum.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is no {kind}")]
pub struct UnknownWord {
    /// The enum's name (`UrlState`).
    pub kind: &'static str,
    /// The text.
    pub text: String,
}
