//! The operator schemas of `torch.library` (`"hc_pre(Tensor x, int n=4, *, float eps=1e-6) ->
//! (Tensor, Tensor)"`): parsed when a script defines an operator, read when
//! `torch.ops.<namespace>.<name>(…)` binds its arguments and checks what its kernel returned.
//! Alias annotations (`Tensor(a!)`) are read and ignored: tensors here have one memory.

use crate::lang::interp::value::Value;
use crate::messages::LibraryOperatorMessage;

/// A parsed schema.
pub(crate) struct Schema {
    /// The operator's name (without namespace or overload).
    pub name: String,
    /// The arguments in order.
    pub arguments: Vec<SchemaArgument>,
    /// What the operator returns: `None` for `-> ()`, one type, or a tuple.
    pub returns: Returns,
}

/// One argument of a schema.
pub(crate) struct SchemaArgument {
    /// Its name.
    pub name: String,
    /// Its type.
    pub kind: SchemaType,
    /// Its default, when it has one.
    pub default: Option<Value>,
    /// Whether it comes after `*` (a kernel receives it as a keyword).
    pub keyword_only: bool,
}

/// What a schema returns.
#[derive(Debug)]
pub(crate) enum Returns {
    /// `-> ()`: nothing (`None`).
    Nothing,
    /// `-> Tensor`.
    One(SchemaType),
    /// `-> (Tensor, Tensor)`.
    Tuple(Vec<SchemaType>),
}

impl Returns {
    /// The result of a kernel when it is what the schema returns (a list of the returns as a
    /// tuple), else what it was, for the message (`tuple of 2`, `NoneType`).
    pub fn take(&self, result: Value) -> Result<Value, String> {
        let all = |kinds: &[SchemaType], items: &[Value]| {
            items.len() == kinds.len() && kinds.iter().zip(items).all(|(kind, item)| kind.accepts(item))
        };
        let fits = match (self, &result) {
            (Returns::Nothing, Value::None) => true,
            (Returns::One(kind), value) => kind.accepts(value),
            (Returns::Tuple(kinds), Value::Tuple(items)) => all(kinds, items),
            (Returns::Tuple(kinds), Value::List(items)) => all(kinds, &items.borrow()),
            _ => false,
        };
        match (fits, &result) {
            (true, Value::List(items)) if matches!(self, Returns::Tuple(_)) => Ok(Value::tuple(items.borrow().clone())),
            (true, _) => Ok(result),
            (false, Value::Tuple(items)) => Err(format!("tuple of {}", items.len())),
            (false, Value::List(items)) => Err(format!("list of {}", items.borrow().len())),
            (false, other) => Err(other.type_name().to_string()),
        }
    }

    /// As written in a schema: `()`, `Tensor`, `(Tensor, Tensor)`.
    pub fn text(&self) -> String {
        match self {
            Returns::Nothing => "()".to_string(),
            Returns::One(kind) => kind.text.clone(),
            Returns::Tuple(kinds) => {
                format!("({})", kinds.iter().map(|kind| kind.text.as_str()).collect::<Vec<_>>().join(", "))
            }
        }
    }
}

/// The base of a schema type.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Base {
    Tensor,
    Int,
    Float,
    Bool,
    Str,
    Scalar,
    ScalarType,
    /// Devices, layouts, memory formats, generators: passed on as they are.
    Opaque,
}

/// A schema type: a base, maybe a list of it, maybe optional.
#[derive(Debug, Clone)]
pub(crate) struct SchemaType {
    base: Base,
    list: bool,
    element_optional: bool,
    optional: bool,
    /// As written (without alias annotations), for messages.
    pub text: String,
}

impl SchemaType {
    /// Whether `value` is a value of this type.
    pub fn accepts(&self, value: &Value) -> bool {
        if self.optional && matches!(value, Value::None) {
            return true;
        }
        if !self.list {
            return self.base_accepts(value);
        }
        let element = |item: &Value| (self.element_optional && matches!(item, Value::None)) || self.base_accepts(item);
        match value {
            Value::List(items) => items.borrow().iter().all(element),
            Value::Tuple(items) => items.iter().all(element),
            // `int[2] stride=1`: one int stands for every element.
            Value::Int(_) => self.base == Base::Int,
            _ => false,
        }
    }

    fn base_accepts(&self, value: &Value) -> bool {
        match self.base {
            Base::Tensor => matches!(value, Value::Tensor(_)),
            Base::Int => matches!(value, Value::Int(_) | Value::Bool(_)),
            Base::Float | Base::Scalar => matches!(value, Value::Int(_) | Value::Bool(_) | Value::Float(_)),
            Base::Bool => matches!(value, Value::Bool(_)),
            Base::Str => matches!(value, Value::Str(_)),
            Base::ScalarType => matches!(value, Value::DType(..)),
            Base::Opaque => true,
        }
    }
}

/// Why a schema does not parse.
pub(crate) fn parse(schema: &str) -> Result<Schema, LibraryOperatorMessage> {
    let mut reader = Reader { text: schema.chars().collect(), at: 0, schema };
    reader.schema()
}

/// Parses `(arguments) -> returns` for `torch.library.define("ns::name", "(Tensor x) -> Tensor")`.
pub(crate) fn parse_with_name(name: &str, rest: &str) -> Result<Schema, LibraryOperatorMessage> {
    let mut schema = parse(&format!("{name}{rest}"))?;
    schema.name = name.to_string();
    Ok(schema)
}

struct Reader<'a> {
    text: Vec<char>,
    at: usize,
    schema: &'a str,
}

impl Reader<'_> {
    fn schema(&mut self) -> Result<Schema, LibraryOperatorMessage> {
        let mut name = self.name()?;
        // `ns::name.overload`: the namespace is the library's; the overload is not told apart here.
        while self.eat("::") {
            name = self.name()?;
        }
        if self.eat(".") {
            self.name()?;
        }
        self.expect("(")?;
        let mut arguments = Vec::new();
        let mut keyword_only = false;
        if !self.eat(")") {
            loop {
                if self.eat("*") {
                    keyword_only = true;
                } else {
                    arguments.push(self.argument(keyword_only)?);
                }
                if self.eat(")") {
                    break;
                }
                self.expect(",")?;
            }
        }
        self.expect("->")?;
        let returns = self.returns()?;
        self.skip_space();
        if self.at < self.text.len() {
            return Err(self.token_error("end"));
        }
        Ok(Schema { name, arguments, returns })
    }

    fn argument(&mut self, keyword_only: bool) -> Result<SchemaArgument, LibraryOperatorMessage> {
        let kind = self.kind()?;
        let name = self.name()?;
        let default = if self.eat("=") { Some(self.default(&name)?) } else { None };
        Ok(SchemaArgument { name, kind, default, keyword_only })
    }

    fn returns(&mut self) -> Result<Returns, LibraryOperatorMessage> {
        if !self.eat("(") {
            let kind = self.kind()?;
            return Ok(Returns::One(kind));
        }
        let mut kinds = Vec::new();
        if !self.eat(")") {
            loop {
                kinds.push(self.kind()?);
                // A return may be named: `(Tensor values, Tensor indices)`.
                self.skip_space();
                if self.peek().is_some_and(is_name_start) {
                    self.name()?;
                }
                if self.eat(")") {
                    break;
                }
                self.expect(",")?;
            }
        }
        Ok(match kinds.len() {
            0 => Returns::Nothing,
            1 => Returns::One(kinds.remove(0)),
            _ => Returns::Tuple(kinds),
        })
    }

    fn kind(&mut self) -> Result<SchemaType, LibraryOperatorMessage> {
        let word = self.name()?;
        let base = match word.as_str() {
            "Tensor" => Base::Tensor,
            "int" | "SymInt" => Base::Int,
            "float" => Base::Float,
            "bool" => Base::Bool,
            "str" => Base::Str,
            "Scalar" | "number" => Base::Scalar,
            "ScalarType" => Base::ScalarType,
            "Device" | "Layout" | "MemoryFormat" | "Generator" | "Any" => Base::Opaque,
            _ => return Err(LibraryOperatorMessage::SchemaType { schema: self.schema.into(), type_name: word }),
        };
        let mut kind = SchemaType { base, list: false, element_optional: false, optional: false, text: word };
        loop {
            self.skip_space();
            match self.peek() {
                // An alias annotation: `Tensor(a!)`, `Tensor(a -> *)`.
                Some('(') if kind.base == Base::Tensor && !kind.list => self.skip_alias()?,
                Some('[') => {
                    self.at += 1;
                    while self.peek().is_some_and(|c| c.is_ascii_digit() || c == ' ') {
                        self.at += 1;
                    }
                    self.expect("]")?;
                    kind.element_optional = kind.optional;
                    kind.optional = false;
                    kind.list = true;
                    kind.text.push_str("[]");
                }
                Some('?') => {
                    self.at += 1;
                    kind.optional = true;
                    kind.text.push('?');
                }
                _ => return Ok(kind),
            }
        }
    }

    fn skip_alias(&mut self) -> Result<(), LibraryOperatorMessage> {
        while let Some(c) = self.peek() {
            self.at += 1;
            if c == ')' {
                return Ok(());
            }
        }
        Err(self.token_error(")"))
    }

    /// A default as written up to the next `,` or `)` outside brackets and quotes.
    fn default(&mut self, argument: &str) -> Result<Value, LibraryOperatorMessage> {
        self.skip_space();
        let start = self.at;
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek() {
            match (quote, c) {
                (Some(open), _) if c == open => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '[') => depth += 1,
                (None, ']') => depth = depth.saturating_sub(1),
                (None, ',' | ')') if depth == 0 => break,
                _ => {}
            }
            self.at += 1;
        }
        let text: String = self.text[start..self.at].iter().collect();
        literal(text.trim()).ok_or_else(|| LibraryOperatorMessage::SchemaDefault {
            schema: self.schema.into(),
            argument: argument.into(),
            text: text.trim().into(),
        })
    }

    fn name(&mut self) -> Result<String, LibraryOperatorMessage> {
        self.skip_space();
        let start = self.at;
        if !self.peek().is_some_and(is_name_start) {
            return Err(LibraryOperatorMessage::SchemaName { schema: self.schema.into(), position: start + 1 });
        }
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.at += 1;
        }
        Ok(self.text[start..self.at].iter().collect())
    }

    fn peek(&self) -> Option<char> {
        self.text.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        let matches = token.chars().enumerate().all(|(offset, c)| self.text.get(self.at + offset) == Some(&c));
        if matches {
            self.at += token.chars().count();
        }
        matches
    }

    fn expect(&mut self, token: &str) -> Result<(), LibraryOperatorMessage> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.token_error(token))
        }
    }

    fn token_error(&self, token: &str) -> LibraryOperatorMessage {
        LibraryOperatorMessage::SchemaToken { schema: self.schema.into(), position: self.at + 1, token: token.into() }
    }
}

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

/// A default's value: `None`, `True`, `False`, a number, a quoted string, a list of those; a bare
/// word (`contiguous_format`, `Mean`) is kept as its text. `None` for an empty default.
fn literal(text: &str) -> Option<Value> {
    Some(match text {
        "" => return None,
        "None" => Value::None,
        "True" => Value::Bool(true),
        "False" => Value::Bool(false),
        "inf" => Value::Float(f64::INFINITY),
        "-inf" => Value::Float(f64::NEG_INFINITY),
        _ if text.starts_with('[') && text.ends_with(']') => {
            let inner = text[1..text.len() - 1].trim();
            let items = if inner.is_empty() {
                Vec::new()
            } else {
                inner.split(',').map(|item| literal(item.trim())).collect::<Option<Vec<_>>>()?
            };
            Value::list(items)
        }
        _ if text.len() >= 2
            && (text.starts_with('"') && text.ends_with('"') || text.starts_with('\'') && text.ends_with('\'')) =>
        {
            Value::string(&text[1..text.len() - 1])
        }
        _ => match (text.parse::<i64>(), text.parse::<f64>()) {
            (Ok(integer), _) => Value::Int(integer),
            (_, Ok(float)) => Value::Float(float),
            _ if text.chars().all(|c| c.is_alphanumeric() || c == '_') => Value::string(text),
            _ => return None,
        },
    })
}
