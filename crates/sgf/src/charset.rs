//! Choosing the text encoding of a game tree.
//!
//! SGF text is bytes in the encoding named by the root's `CA` property, ISO-8859-1 by default.
//! Real files often lack `CA`, name an encoding they do not use, or declare UTF-8 while holding
//! names cut in the middle of a character. The reader never fails a file over its text; it picks an
//! encoding with these documented rules, applied per game tree:
//!
//! 1. A file that starts with a UTF-16 byte-order mark, or whose first bytes alternate with NULs,
//!    is decoded as UTF-16 as a whole before parsing ([`detect_utf16`]).
//! 2. A tree whose bytes are all ASCII is decoded as ASCII (identical in every ASCII-compatible
//!    encoding), except when `CA` names an encoding that is not ASCII-compatible (UTF-16, ISO-2022-JP)
//!    or, without `CA`, the bytes hold ISO-2022-JP escape sequences.
//! 3. `CA` naming UTF-16: its values are decoded as UTF-16 (some writers embed UTF-16 values in an
//!    otherwise 8-bit file).
//! 4. Bytes that are valid UTF-8 are UTF-8, whatever `CA` says: valid multi-byte UTF-8 arising by
//!    chance from a legacy encoding is rare, while UTF-8 files with a wrong or default `CA` are common.
//! 5. `CA[UTF-8]` with invalid bytes: if at least as many well-formed multi-byte characters as
//!    malformed sequences are found, the text is UTF-8 with the bad bytes replaced by U+FFFD.
//! 6. `CA` naming a known legacy encoding that decodes the bytes without error: that encoding.
//! 7. Non-ASCII bytes that never follow each other (accented letters in Latin text) are read as
//!    windows-1252, the superset of the `FF[4]` default ISO-8859-1.
//! 8. Otherwise the encoding is detected from the first 64 KiB of the tree with `chardetng` (legacy
//!    CJK encodings Shift_JIS, EUC-JP, GBK/GB18030, Big5, EUC-KR and the Latin/Cyrillic/Greek
//!    windows code pages).
//!
//! Labels follow the WHATWG Encoding Standard, plus the aliases SGF files use (`UTF8`, `UTF16LE`,
//! `EUC-CN`, `CP936`, ...). ISO-8859-1 is decoded as its superset windows-1252.

use encoding_rs::Encoding;

use crate::tree::{Charset, CharsetSource};

/// Resolves a `CA` value (an encoding label) to an encoding.
pub fn encoding_for_label(label: &[u8]) -> Option<&'static Encoding> {
    let label = label.trim_ascii();
    if let Some(e) = Encoding::for_label_no_replacement(label) {
        return Some(e);
    }
    let mut norm: Vec<u8> = label.iter().filter(|&&b| b != b'-' && b != b'_' && b != b' ').copied().collect();
    norm.make_ascii_lowercase();
    let e = match norm.as_slice() {
        b"utf8" => encoding_rs::UTF_8,
        b"utf16le" | b"utf16" | b"ucs2" => encoding_rs::UTF_16LE,
        b"utf16be" => encoding_rs::UTF_16BE,
        b"euccn" | b"cp936" | b"gb2312" | b"gbk" | b"ms936" => encoding_rs::GBK,
        b"gb18030" => encoding_rs::GB18030,
        b"big5" | b"cp950" | b"big5hkscs" => encoding_rs::BIG5,
        b"shiftjis" | b"sjis" | b"cp932" | b"mskanji" | b"windows31j" => encoding_rs::SHIFT_JIS,
        b"eucjp" => encoding_rs::EUC_JP,
        b"euckr" | b"cp949" | b"uhc" | b"ksc5601" => encoding_rs::EUC_KR,
        b"iso2022jp" => encoding_rs::ISO_2022_JP,
        b"latin1" | b"iso88591" | b"cp1252" => encoding_rs::WINDOWS_1252,
        b"ascii" | b"usascii" => encoding_rs::WINDOWS_1252,
        b"macroman" | b"macintosh" => encoding_rs::MACINTOSH,
        _ => {
            // "ISO8859-15", "windows1251", "cp1251": retry with the digits split off.
            let digits = norm.iter().position(u8::is_ascii_digit)?;
            let (name, num) = norm.split_at(digits);
            let candidate: Vec<u8> = match name {
                b"iso" | b"iso8859" => {
                    let rest = num.strip_prefix(b"8859").unwrap_or(num);
                    [b"iso-8859-".as_slice(), rest].concat()
                }
                b"windows" | b"cp" | b"win" => [b"windows-".as_slice(), num].concat(),
                b"koi" => [b"koi".as_slice(), num].concat(),
                _ => return None,
            };
            return Encoding::for_label_no_replacement(&candidate);
        }
    };
    Some(e)
}

/// Detects a UTF-16 file by its byte-order mark, or by a first code unit `(` (or `;`) and NUL bytes
/// in every other position among its first bytes. Returns the encoding and the BOM length.
pub fn detect_utf16(bytes: &[u8]) -> Option<(&'static Encoding, usize)> {
    match bytes {
        [0xFF, 0xFE, ..] => return Some((encoding_rs::UTF_16LE, 2)),
        [0xFE, 0xFF, ..] => return Some((encoding_rs::UTF_16BE, 2)),
        _ => {}
    }
    let head = &bytes[..bytes.len().min(512) & !1];
    if head.len() < 8 {
        return None;
    }
    // The first code unit that is not blank must be `(` or `;`, as in any SGF file.
    let first = head.chunks_exact(2).find(|u| !matches!(u, [0, b] | [b, 0] if *b <= b' '))?;
    let starts = |c: u8| first == [0, c] || first == [c, 0];
    if !(starts(b'(') || starts(b';')) {
        return None;
    }
    let pairs = head.len() / 2;
    let even_nul = head.iter().step_by(2).filter(|&&b| b == 0).count();
    let odd_nul = head.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    if even_nul * 10 >= pairs * 9 && odd_nul * 10 < pairs {
        Some((encoding_rs::UTF_16BE, 0))
    } else if odd_nul * 10 >= pairs * 9 && even_nul * 10 < pairs {
        Some((encoding_rs::UTF_16LE, 0))
    } else {
        None
    }
}

/// The outcome of [`choose`]: the charset and, when the declaration was not followed, why.
pub struct Choice {
    /// Chosen charset (`lossy` is filled in while decoding).
    pub charset: Charset,
    /// A note for the diagnostics when `CA` was missing, unknown or overridden.
    pub note: Option<String>,
}

fn is_utf16(e: &'static Encoding) -> bool {
    e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE
}

/// Counts well-formed multi-byte UTF-8 characters and malformed sequences.
fn utf8_quality(mut bytes: &[u8]) -> (usize, usize) {
    let (mut good, mut bad) = (0, 0);
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                good += s.chars().filter(|c| !c.is_ascii()).count();
                return (good, bad);
            }
            Err(e) => {
                let valid = e.valid_up_to();
                // The prefix is valid by construction; count its multi-byte characters.
                good += bytes[..valid].iter().filter(|&&b| b >= 0xC0).count();
                bad += 1;
                let skip = e.error_len().unwrap_or(bytes.len() - valid);
                bytes = &bytes[valid + skip.max(1)..];
            }
        }
    }
}

/// Whether the bytes hold an ISO-2022-JP switch to JIS X 0208 (`ESC $ B`) that is not escaped
/// with a backslash (the writer escapes ESC so that its UTF-8 output is never taken for ISO-2022-JP).
fn has_jis_escape(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"\x1b$B").any(|i| i == 0 || bytes[i - 1] != b'\\')
}

/// Bytes of a tree given to the detector.
const DETECTION_SAMPLE: usize = 64 * 1024;

/// Whether two non-ASCII bytes ever follow each other (multi-byte CJK text always has such pairs).
fn has_high_byte_pair(bytes: &[u8]) -> bool {
    bytes.windows(2).any(|w| w[0] >= 0x80 && w[1] >= 0x80)
}

/// Chooses the encoding of a tree from its `CA` value (if any) and the bytes of the whole tree.
pub fn choose(declared: Option<&[u8]>, bytes: &[u8]) -> Choice {
    let declared_enc = declared.and_then(encoding_for_label);
    let label = || String::from_utf8_lossy(declared.unwrap_or_default()).into_owned();
    let unknown_note = match (declared, declared_enc) {
        (Some(_), None) => Some(format!("unknown charset CA[{}]", label())),
        _ => None,
    };
    let declared_charset = |e| Charset { encoding: e, source: CharsetSource::Declared, lossy: false, declared: None };
    if let Some(e) = declared_enc
        && (is_utf16(e) || e == encoding_rs::ISO_2022_JP)
    {
        return Choice { charset: declared_charset(e), note: None };
    }
    if bytes.is_ascii() {
        if declared_enc.is_none() && has_jis_escape(bytes) {
            // 7-bit text with JIS X 0208 escape sequences.
            return Choice {
                charset: Charset {
                    encoding: encoding_rs::ISO_2022_JP,
                    source: CharsetSource::Detected,
                    lossy: false,
                    declared: None,
                },
                note: Some("no CA property; detected ISO-2022-JP".into()),
            };
        }
        let charset = match declared_enc {
            Some(e) => declared_charset(e),
            None => Charset::default(),
        };
        return Choice { charset, note: unknown_note };
    }
    if std::str::from_utf8(bytes).is_ok() {
        return match declared_enc {
            Some(e) if e == encoding_rs::UTF_8 => Choice { charset: declared_charset(e), note: None },
            Some(_) => Choice {
                charset: Charset {
                    encoding: encoding_rs::UTF_8,
                    source: CharsetSource::Detected,
                    lossy: false,
                    declared: None,
                },
                note: Some(format!("CA[{}] declared, but the text is UTF-8", label())),
            },
            None => Choice {
                charset: Charset {
                    encoding: encoding_rs::UTF_8,
                    source: CharsetSource::Detected,
                    lossy: false,
                    declared: None,
                },
                note: unknown_note,
            },
        };
    }
    if declared_enc == Some(encoding_rs::UTF_8) {
        let (good, bad) = utf8_quality(bytes);
        if good >= bad {
            return Choice {
                charset: Charset {
                    encoding: encoding_rs::UTF_8,
                    source: CharsetSource::Declared,
                    lossy: true,
                    declared: None,
                },
                note: Some(format!("CA[UTF-8] text has {bad} malformed sequence(s), replaced by U+FFFD")),
            };
        }
    } else if let Some(e) = declared_enc
        && e.decode_without_bom_handling_and_without_replacement(bytes).is_some()
    {
        return Choice { charset: declared_charset(e), note: None };
    }
    if !has_high_byte_pair(bytes) {
        // Isolated non-ASCII bytes (accented letters between ASCII ones) are a single-byte
        // encoding; the FF[4] default ISO-8859-1 (as windows-1252) is the best guess.
        let e = encoding_rs::WINDOWS_1252;
        let note = format!("CA missing or not matching; isolated non-ASCII bytes read as {}", e.name());
        return Choice {
            charset: Charset { encoding: e, source: CharsetSource::Detected, lossy: false, declared: None },
            note: Some(note),
        };
    }
    let mut detector = chardetng::EncodingDetector::new();
    // A prefix is enough to tell encodings apart, and bounds the cost on huge trees.
    let sample = &bytes[..bytes.len().min(DETECTION_SAMPLE)];
    detector.feed(sample, true);
    let e = detector.guess(None, false);
    let note = match declared {
        Some(_) => format!("CA[{}] does not match the text; detected {}", label(), e.name()),
        None => format!("no CA property; detected {}", e.name()),
    };
    Choice {
        charset: Charset { encoding: e, source: CharsetSource::Detected, lossy: false, declared: None },
        note: Some(note),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(encoding_for_label(b"UTF-8"), Some(encoding_rs::UTF_8));
        assert_eq!(encoding_for_label(b" utf8 "), Some(encoding_rs::UTF_8));
        assert_eq!(encoding_for_label(b"UTF16LE"), Some(encoding_rs::UTF_16LE));
        assert_eq!(encoding_for_label(b"EUC-CN"), Some(encoding_rs::GBK));
        assert_eq!(encoding_for_label(b"MS_KANJI"), Some(encoding_rs::SHIFT_JIS));
        assert_eq!(encoding_for_label(b"ISO8859-15"), Some(encoding_rs::ISO_8859_15));
        assert_eq!(encoding_for_label(b"Windows-1251"), Some(encoding_rs::WINDOWS_1251));
        assert_eq!(encoding_for_label(b"cp1251"), Some(encoding_rs::WINDOWS_1251));
        assert_eq!(encoding_for_label(b"bogus"), None);
    }

    #[test]
    fn utf16_sniffing() {
        assert_eq!(detect_utf16(b"\xFF\xFE(\0;\0"), Some((encoding_rs::UTF_16LE, 2)));
        assert_eq!(detect_utf16(b"\0(\0;\0F\0F\0[\x004\0]"), Some((encoding_rs::UTF_16BE, 0)));
        assert_eq!(detect_utf16(b"(;FF[4]GM[1]SZ[19])"), None);
        assert_eq!(detect_utf16(b"\0\n\0(\0;\0F\0F\0[\0"), Some((encoding_rs::UTF_16BE, 0)));
        assert_eq!(detect_utf16(b"(\0;\0F\0F\0[\0"), Some((encoding_rs::UTF_16LE, 0)));
        // Text with alternating NULs after an 8-bit start is not UTF-16.
        assert_eq!(detect_utf16(b"(;C[\\\0\\\0\\\0\\\0\\\0\\\0\\\0]"), None);
    }

    #[test]
    fn choices() {
        let c = choose(Some(b"ISO-8859-1"), "é".as_bytes());
        assert_eq!(c.charset.encoding, encoding_rs::UTF_8);
        assert_eq!(c.charset.source, CharsetSource::Detected);
        let c = choose(Some(b"UTF-8"), b"abc\xE4\xB8\xAD\xE4\xB8");
        assert_eq!(c.charset.encoding, encoding_rs::UTF_8);
        assert!(c.charset.lossy);
        let c = choose(Some(b"Shift_JIS"), b"\x88\xcd\x8c\xe9");
        assert_eq!(c.charset.encoding, encoding_rs::SHIFT_JIS);
        assert_eq!(c.charset.source, CharsetSource::Declared);
        let c = choose(None, b"abc");
        assert_eq!(c.charset.source, CharsetSource::Assumed);
    }
}
