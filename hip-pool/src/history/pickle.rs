//! The little of Python's pickle format (protocol 2) that a memory
//! snapshot needs: dictionaries, lists, strings and integers. Written from
//! the format's opcodes (`pickletools`' documentation), no memo.

/// A value of the snapshot.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Int(i128),
    Str(String),
    List(Vec<Value>),
    /// Keys are strings, in order.
    Dict(Vec<(&'static str, Value)>),
}

const PROTO: u8 = 0x80;
const STOP: u8 = b'.';
const MARK: u8 = b'(';
const EMPTY_DICT: u8 = b'}';
const EMPTY_LIST: u8 = b']';
const SETITEMS: u8 = b'u';
const APPENDS: u8 = b'e';
const BININT: u8 = b'J';
const LONG1: u8 = 0x8a;
const BINUNICODE: u8 = b'X';

/// `value` pickled with protocol 2.
pub(crate) fn dumps(value: &Value) -> Vec<u8> {
    let mut out = vec![PROTO, 2];
    write(&mut out, value);
    out.push(STOP);
    out
}

fn write(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Int(v) => match i32::try_from(*v) {
            Ok(small) => {
                out.push(BININT);
                out.extend_from_slice(&small.to_le_bytes());
            }
            Err(_) => {
                // Two's complement, little endian, as few bytes as keep the sign.
                let bytes = v.to_le_bytes();
                let mut len = bytes.len();
                while len > 1 {
                    let (last, next) = (bytes[len - 1], bytes[len - 2]);
                    let redundant = (last == 0 && next & 0x80 == 0) || (last == 0xff && next & 0x80 != 0);
                    if !redundant {
                        break;
                    }
                    len -= 1;
                }
                out.push(LONG1);
                out.push(len as u8);
                out.extend_from_slice(&bytes[..len]);
            }
        },
        Value::Str(s) => {
            out.push(BINUNICODE);
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        Value::List(items) => {
            out.push(EMPTY_LIST);
            if !items.is_empty() {
                out.push(MARK);
                for item in items {
                    write(out, item);
                }
                out.push(APPENDS);
            }
        }
        Value::Dict(entries) => {
            out.push(EMPTY_DICT);
            if !entries.is_empty() {
                out.push(MARK);
                for (key, item) in entries {
                    write(out, &Value::Str((*key).to_owned()));
                    write(out, item);
                }
                out.push(SETITEMS);
            }
        }
    }
}

/// The value `bytes` pickle, for the values [`dumps`] writes (a checker
/// for the tests: the opcodes above, nothing else).
#[cfg(test)]
pub(crate) fn loads(bytes: &[u8]) -> Result<Value, String> {
    enum Item {
        Mark,
        Value(Value),
    }
    let mut stack: Vec<Item> = Vec::new();
    let mut at = 2;
    if bytes.get(..2) != Some(&[PROTO, 2]) {
        return Err("not protocol 2".into());
    }
    let take = |at: &mut usize, n: usize| -> Result<&[u8], String> {
        let slice = bytes.get(*at..*at + n).ok_or("truncated")?;
        *at += n;
        Ok(slice)
    };
    loop {
        let op = *take(&mut at, 1)?.first().ok_or("truncated")?;
        match op {
            STOP => break,
            MARK => stack.push(Item::Mark),
            EMPTY_DICT => stack.push(Item::Value(Value::Dict(Vec::new()))),
            EMPTY_LIST => stack.push(Item::Value(Value::List(Vec::new()))),
            BININT => {
                let raw: [u8; 4] = take(&mut at, 4)?.try_into().map_err(|_| "truncated")?;
                stack.push(Item::Value(Value::Int(i32::from_le_bytes(raw).into())));
            }
            LONG1 => {
                let len = usize::from(take(&mut at, 1)?[0]);
                let raw = take(&mut at, len)?;
                let fill = if raw.last().is_some_and(|b| b & 0x80 != 0) { 0xff } else { 0 };
                let mut full = [fill; 16];
                full[..len].copy_from_slice(raw);
                stack.push(Item::Value(Value::Int(i128::from_le_bytes(full))));
            }
            BINUNICODE => {
                let len = u32::from_le_bytes(take(&mut at, 4)?.try_into().map_err(|_| "truncated")?) as usize;
                let text = std::str::from_utf8(take(&mut at, len)?).map_err(|e| e.to_string())?;
                stack.push(Item::Value(Value::Str(text.to_owned())));
            }
            APPENDS | SETITEMS => {
                let mark = stack.iter().rposition(|i| matches!(i, Item::Mark)).ok_or("no mark")?;
                let items: Vec<Value> = stack
                    .drain(mark..)
                    .skip(1)
                    .map(|i| match i {
                        Item::Value(v) => Ok(v),
                        Item::Mark => Err("a mark in the items"),
                    })
                    .collect::<Result<_, _>>()?;
                match (op, stack.last_mut()) {
                    (APPENDS, Some(Item::Value(Value::List(list)))) => list.extend(items),
                    (SETITEMS, Some(Item::Value(Value::Dict(dict)))) => {
                        for pair in items.chunks(2) {
                            let [Value::Str(key), value] = pair else {
                                return Err("a key that is not a string".into());
                            };
                            // Test-only: leak the key for the `'static` of `Value`.
                            dict.push((Box::leak(key.clone().into_boxed_str()), value.clone()));
                        }
                    }
                    _ => return Err("items without their container".into()),
                }
            }
            other => return Err(format!("opcode {other:#x} is not one the snapshot uses")),
        }
    }
    match (stack.pop(), stack.is_empty()) {
        (Some(Item::Value(value)), true) => Ok(value),
        _ => Err("not one value".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_and_integers_take_the_fewest_bytes() {
        let value = Value::Dict(vec![
            ("small", Value::Int(-5)),
            ("address", Value::Int(0x7f00_dead_0000)),
            ("negative", Value::Int(-(1 << 40))),
            ("name", Value::Str("é and \"quotes\"".into())),
            ("list", Value::List(vec![Value::Int(1), Value::List(Vec::new()), Value::Dict(Vec::new())])),
        ]);
        assert_eq!(loads(&dumps(&value)).unwrap(), value);
        // 0x7f00dead0000 needs six bytes, its sign bit clear.
        let bytes = dumps(&Value::Int(0x7f00_dead_0000));
        assert_eq!(&bytes[2..4], [LONG1, 6]);
        // Python's own `pickle.dumps(255, 2)` would use BININT1; BININT is
        // as valid and one opcode fewer to write.
        assert_eq!(&dumps(&Value::Int(255))[2..], [BININT, 255, 0, 0, 0, STOP]);
    }
}
