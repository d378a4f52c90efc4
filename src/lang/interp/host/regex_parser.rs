//! The parser of `regex.rs`'s patterns: Python's `re` syntax for the features the engine has,
//! with Python's error texts (`nothing to repeat`, `multiple repeat`, `bad character range` …)
//! at the char position Python gives.

use super::regex::{ClassItem, Node, PatternError};

pub(super) struct Parser {
    chars: Vec<char>,
    pub(super) position: usize,
    /// The capturing groups opened so far.
    pub(super) groups: usize,
}

impl Parser {
    pub(super) fn new(pattern: &str) -> Parser {
        Parser { chars: pattern.chars().collect(), position: 0, groups: 0 }
    }

    /// Whether the whole pattern has been read.
    pub(super) fn at_end(&self) -> bool {
        self.position >= self.chars.len()
    }

    pub(super) fn error(&self, message: &str) -> PatternError {
        PatternError { message: message.to_string(), position: self.position }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.position).copied()
    }

    pub(super) fn alternation(&mut self) -> Result<Node, PatternError> {
        let mut branches = vec![self.concat()?];
        while self.peek() == Some('|') {
            self.position += 1;
            branches.push(self.concat()?);
        }
        Ok(if branches.len() == 1 { branches.remove(0) } else { Node::Alternation(branches) })
    }

    fn concat(&mut self) -> Result<Node, PatternError> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            items.push(self.quantified(atom)?);
        }
        Ok(Node::Concat(items))
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, PatternError> {
        let start = self.position;
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => match self.counts() {
                Some(counts) => counts,
                None => {
                    // `{` that is no repeat count is a literal, as in Python.
                    self.position = start;
                    return Ok(atom);
                }
            },
            _ => return Ok(atom),
        };
        // Past the `*`, `+`, `?` or the `}` of a count.
        self.position += 1;
        if matches!(atom, Node::Start | Node::End | Node::TextStart | Node::TextEnd | Node::WordBoundary(_)) {
            self.position = start;
            return Err(self.error("nothing to repeat"));
        }
        if max.is_some_and(|max| max < min) {
            self.position = start;
            return Err(self.error("min repeat greater than max repeat"));
        }
        let greedy = if self.peek() == Some('?') {
            self.position += 1;
            false
        } else {
            true
        };
        if matches!(self.peek(), Some('*' | '+' | '?')) || (self.peek() == Some('{') && self.lookahead_counts()) {
            return Err(self.error("multiple repeat"));
        }
        Ok(Node::Repeat { node: Box::new(atom), min, max, greedy })
    }

    /// Whether a `{m,n}` count starts here (without consuming it).
    fn lookahead_counts(&mut self) -> bool {
        let start = self.position;
        let found = self.counts().is_some();
        self.position = start;
        found
    }

    /// `{m}`, `{m,}`, `{,n}`, `{m,n}`: the counts, with the position on the closing `}`.
    fn counts(&mut self) -> Option<(usize, Option<usize>)> {
        let start = self.position;
        self.position += 1;
        let low = self.number();
        let result = if self.peek() == Some(',') {
            self.position += 1;
            let high = self.number();
            Some((low.unwrap_or(0), high))
        } else {
            low.map(|low| (low, Some(low)))
        };
        if self.peek() == Some('}') && result.is_some() {
            result
        } else {
            self.position = start;
            None
        }
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.position;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.position += 1;
        }
        let digits: String = self.chars[start..self.position].iter().collect();
        digits.parse().ok()
    }

    fn atom(&mut self) -> Result<Node, PatternError> {
        let Some(c) = self.peek() else { return Err(self.error("unexpected end of pattern")) };
        self.position += 1;
        Ok(match c {
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '(' => self.group()?,
            '[' => self.class()?,
            '\\' => self.escape(false)?.0,
            '*' | '+' | '?' => {
                self.position -= 1;
                return Err(self.error("nothing to repeat"));
            }
            other => Node::Char(other),
        })
    }

    fn group(&mut self) -> Result<Node, PatternError> {
        let number = if self.peek() == Some('?') {
            if self.chars.get(self.position + 1) != Some(&':') {
                return Err(self.error("this group syntax is not supported (only '(...)' and '(?:...)')"));
            }
            self.position += 2;
            None
        } else {
            self.groups += 1;
            Some(self.groups)
        };
        let inner = self.alternation()?;
        if self.peek() != Some(')') {
            return Err(self.error("missing ), unterminated subpattern"));
        }
        self.position += 1;
        Ok(Node::Group(number, Box::new(inner)))
    }

    fn class(&mut self) -> Result<Node, PatternError> {
        let open = self.position - 1;
        let negated = self.peek() == Some('^');
        if negated {
            self.position += 1;
        }
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let Some(c) = self.peek() else {
                self.position = open;
                return Err(self.error("unterminated character set"));
            };
            self.position += 1;
            if c == ']' && !first {
                break;
            }
            first = false;
            let low = if c == '\\' {
                match self.escape(true)? {
                    (_, Some(item @ ClassItem::Escape(_))) => {
                        items.push(item);
                        continue;
                    }
                    (Node::Char(literal), _) => literal,
                    _ => return Err(self.error("bad escape in character set")),
                }
            } else {
                c
            };
            let range = self.peek() == Some('-') && self.chars.get(self.position + 1).is_some_and(|next| *next != ']');
            if !range {
                items.push(ClassItem::Range(low, low));
                continue;
            }
            self.position += 1;
            let high = match self.peek() {
                Some('\\') => {
                    self.position += 1;
                    match self.escape(true)? {
                        (Node::Char(literal), None) => literal,
                        _ => return Err(self.error("bad character range")),
                    }
                }
                Some(high) => {
                    self.position += 1;
                    high
                }
                None => return Err(self.error("unterminated character set")),
            };
            if high < low {
                return Err(self.error("bad character range"));
            }
            items.push(ClassItem::Range(low, high));
        }
        Ok(Node::Class(items, negated))
    }

    /// The escape after a `\`: a node, and the class item for `\d`-like escapes.
    fn escape(&mut self, in_class: bool) -> Result<(Node, Option<ClassItem>), PatternError> {
        let Some(c) = self.peek() else { return Err(self.error("bad escape (end of pattern)")) };
        self.position += 1;
        let literal = |c: char| Ok((Node::Char(c), None));
        match c {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                Ok((Node::Class(vec![ClassItem::Escape(c)], false), Some(ClassItem::Escape(c))))
            }
            'n' => literal('\n'),
            't' => literal('\t'),
            'r' => literal('\r'),
            'f' => literal('\x0c'),
            'v' => literal('\x0b'),
            'a' => literal('\x07'),
            'b' if in_class => literal('\x08'),
            'b' => Ok((Node::WordBoundary(true), None)),
            'B' if !in_class => Ok((Node::WordBoundary(false), None)),
            'A' if !in_class => Ok((Node::TextStart, None)),
            'Z' if !in_class => Ok((Node::TextEnd, None)),
            c if c.is_ascii_alphanumeric() => {
                self.position -= 2;
                Err(self.error(&format!("bad escape \\{c} (not supported in tile scripts)")))
            }
            other => literal(other),
        }
    }
}
