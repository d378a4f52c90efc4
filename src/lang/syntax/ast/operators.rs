//! The operators of expressions: unary, binary (arithmetic and bitwise), logical and comparisons.

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`.
    Negate,
    /// `+x`.
    Plus,
    /// `not x`.
    Not,
    /// `~x`.
    Invert,
}

/// Binary arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `+`.
    Add,
    /// `-`.
    Subtract,
    /// `*`.
    Multiply,
    /// `/`.
    Divide,
    /// `//`.
    FloorDivide,
    /// `%`.
    Modulo,
    /// `**`.
    Power,
    /// `@`.
    MatMul,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `<<`.
    LeftShift,
    /// `>>`.
    RightShift,
}

impl BinaryOp {
    /// The Python spelling (`+`, `//`, `@`).
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Subtract => "-",
            BinaryOp::Multiply => "*",
            BinaryOp::Divide => "/",
            BinaryOp::FloorDivide => "//",
            BinaryOp::Modulo => "%",
            BinaryOp::Power => "**",
            BinaryOp::MatMul => "@",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::LeftShift => "<<",
            BinaryOp::RightShift => ">>",
        }
    }
}

/// `and` / `or`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicalOp {
    /// `and`.
    And,
    /// `or`.
    Or,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `==`.
    Equal,
    /// `!=`.
    NotEqual,
    /// `<`.
    Less,
    /// `<=`.
    LessEqual,
    /// `>`.
    Greater,
    /// `>=`.
    GreaterEqual,
    /// `in`.
    In,
    /// `not in`.
    NotIn,
    /// `is`.
    Is,
    /// `is not`.
    IsNot,
}

impl CompareOp {
    /// The Python spelling (`<=`, `not in`).
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Equal => "==",
            CompareOp::NotEqual => "!=",
            CompareOp::Less => "<",
            CompareOp::LessEqual => "<=",
            CompareOp::Greater => ">",
            CompareOp::GreaterEqual => ">=",
            CompareOp::In => "in",
            CompareOp::NotIn => "not in",
            CompareOp::Is => "is",
            CompareOp::IsNot => "is not",
        }
    }
}
