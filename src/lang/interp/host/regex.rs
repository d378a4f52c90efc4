//! A backtracking regular-expression engine with Python's `re` semantics for the features scripts
//! use: literals and escapes (`\d \w \s \D \W \S \b \B \A \Z`, `\.` …), `.`, character classes
//! (`[a-z0-9_]`, `[^…]`, escapes inside), anchors `^ $`, groups `( … )` and `(?: … )`, alternation
//! `|`, and the quantifiers `* + ? {m} {m,} {,n} {m,n}` with their lazy `?` forms. Alternatives
//! and quantifiers are tried in Python's order (leftmost first, greedy before shorter), so the
//! groups a match captures are the ones Python's `re` captures. Positions are char indices.

/// The flags of `re` a pattern can take (`re.IGNORECASE`, `re.MULTILINE`, `re.DOTALL`).
pub(crate) const IGNORECASE: i64 = 2;
pub(crate) const MULTILINE: i64 = 8;
pub(crate) const DOTALL: i64 = 16;

/// Why a pattern does not compile: the message and the char position in the pattern.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PatternError {
    pub message: String,
    pub position: usize,
}

#[derive(Debug, Clone)]
pub(super) enum Node {
    Char(char),
    /// `.`
    Any,
    /// A class: its items, negated or not.
    Class(Vec<ClassItem>, bool),
    /// `^`, `\A`, `$`, `\Z`, `\b`, `\B`.
    Start,
    TextStart,
    End,
    TextEnd,
    WordBoundary(bool),
    /// A capturing group (its number) or a non-capturing one.
    Group(Option<usize>, Box<Node>),
    Concat(Vec<Node>),
    Alternation(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: usize,
        max: Option<usize>,
        greedy: bool,
    },
}

#[derive(Debug, Clone)]
pub(super) enum ClassItem {
    Range(char, char),
    /// `\d` (`'d'`), `\w`, `\s` and their negations (upper case).
    Escape(char),
}

use super::regex_parser::Parser;

/// A compiled pattern.
#[derive(Debug, Clone)]
pub(crate) struct Regex {
    root: Node,
    /// The number of capturing groups.
    pub groups: usize,
    flags: i64,
}

/// The spans of a match: group 0 (the whole match) then each group, `None` where it took no part.
pub(crate) type Spans = Vec<Option<(usize, usize)>>;

impl Regex {
    /// Compiles `pattern` with `flags`.
    pub(crate) fn new(pattern: &str, flags: i64) -> Result<Regex, PatternError> {
        let mut parser = Parser::new(pattern);
        let root = parser.alternation()?;
        if !parser.at_end() {
            return Err(parser.error("unbalanced parenthesis"));
        }
        Ok(Regex { root, groups: parser.groups, flags })
    }

    /// The match that starts at `start` (`anchored`), or the leftmost one from `start` on; with
    /// `full`, only a match that ends at the end of `text`; with `must_advance`, not an empty one
    /// at `start`.
    pub(crate) fn find(
        &self,
        text: &[char],
        start: usize,
        anchored: bool,
        full: bool,
        must_advance: bool,
    ) -> Option<Spans> {
        let last = if anchored { start } else { text.len() };
        for from in start..=last {
            let mut spans = vec![None; self.groups + 1];
            let matcher = Matcher { text, flags: self.flags };
            let mut end = None;
            let found = matcher.node(&self.root, from, &mut spans, &mut |at, _| {
                if (full && at != text.len()) || (must_advance && from == start && at == start) {
                    return false;
                }
                end = Some(at);
                true
            });
            if found {
                spans[0] = end.map(|end| (from, end));
                return Some(spans);
            }
        }
        None
    }
}

struct Matcher<'a> {
    text: &'a [char],
    flags: i64,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn escape_matches(kind: char, c: char) -> bool {
    match kind {
        'd' => c.is_ascii_digit(),
        'D' => !escape_matches('d', c),
        'w' => is_word(c),
        'W' => !is_word(c),
        's' => c.is_whitespace(),
        _ => !c.is_whitespace(),
    }
}

impl Matcher<'_> {
    fn flag(&self, flag: i64) -> bool {
        self.flags & flag != 0
    }

    fn same(&self, pattern: char, c: char) -> bool {
        pattern == c || (self.flag(IGNORECASE) && pattern.to_lowercase().eq(c.to_lowercase()))
    }

    fn in_class(&self, items: &[ClassItem], negated: bool, c: char) -> bool {
        let inside = |c: char| {
            items.iter().any(|item| match item {
                ClassItem::Range(low, high) => (*low..=*high).contains(&c),
                ClassItem::Escape(kind) => escape_matches(*kind, c),
            })
        };
        let found =
            inside(c) || (self.flag(IGNORECASE) && (c.to_lowercase().any(inside) || c.to_uppercase().any(inside)));
        found != negated
    }

    /// Matches `node` at `at`; on success calls `next` with the end, which says whether the rest
    /// of the pattern matched (backtracking into `node` when it did not).
    fn node(&self, node: &Node, at: usize, spans: &mut Spans, next: &mut dyn FnMut(usize, &mut Spans) -> bool) -> bool {
        let text = self.text;
        let one = |test: &dyn Fn(char) -> bool| text.get(at).is_some_and(|c| test(*c));
        match node {
            Node::Char(c) => one(&|x| self.same(*c, x)) && next(at + 1, spans),
            Node::Any => one(&|x| x != '\n' || self.flag(DOTALL)) && next(at + 1, spans),
            Node::Class(items, negated) => one(&|x| self.in_class(items, *negated, x)) && next(at + 1, spans),
            Node::Start => (at == 0 || (self.flag(MULTILINE) && text[at - 1] == '\n')) && next(at, spans),
            Node::TextStart => at == 0 && next(at, spans),
            Node::End => {
                let end = at == text.len()
                    || (at + 1 == text.len() && text[at] == '\n')
                    || (self.flag(MULTILINE) && text[at] == '\n');
                end && next(at, spans)
            }
            Node::TextEnd => at == text.len() && next(at, spans),
            Node::WordBoundary(wanted) => {
                let before = at > 0 && is_word(text[at - 1]);
                let after = text.get(at).is_some_and(|c| is_word(*c));
                ((before != after) == *wanted) && next(at, spans)
            }
            Node::Group(number, inner) => self.node(inner, at, spans, &mut |end, spans| {
                let Some(number) = number else { return next(end, spans) };
                let old = spans[*number];
                spans[*number] = Some((at, end));
                if next(end, spans) {
                    return true;
                }
                spans[*number] = old;
                false
            }),
            Node::Concat(items) => self.sequence(items, at, spans, next),
            Node::Alternation(branches) => branches.iter().any(|branch| self.node(branch, at, spans, next)),
            Node::Repeat { node, min, max, greedy } => {
                self.repeat(node, (*min, *max, *greedy), 0, at, usize::MAX, spans, next)
            }
        }
    }

    fn sequence(
        &self,
        items: &[Node],
        at: usize,
        spans: &mut Spans,
        next: &mut dyn FnMut(usize, &mut Spans) -> bool,
    ) -> bool {
        match items.split_first() {
            None => next(at, spans),
            Some((first, rest)) => self.node(first, at, spans, &mut |end, spans| self.sequence(rest, end, spans, next)),
        }
    }

    /// `count` repetitions matched so far, the last ending at `at` (and starting at `previous`).
    #[allow(clippy::too_many_arguments)]
    fn repeat(
        &self,
        node: &Node,
        (min, max, greedy): (usize, Option<usize>, bool),
        count: usize,
        at: usize,
        previous: usize,
        spans: &mut Spans,
        next: &mut dyn FnMut(usize, &mut Spans) -> bool,
    ) -> bool {
        // An empty repetition past the minimum ends the loop (as Python's engine does).
        if count > min && previous == at {
            return false;
        }
        let can_stop = count >= min;
        if !greedy && can_stop && next(at, spans) {
            return true;
        }
        if self.once_more(node, (min, max, greedy), count, at, spans, next) {
            return true;
        }
        greedy && can_stop && next(at, spans)
    }

    /// One more repetition of `node` from `at`, then the rest of the loop.
    fn once_more(
        &self,
        node: &Node,
        (min, max, greedy): (usize, Option<usize>, bool),
        count: usize,
        at: usize,
        spans: &mut Spans,
        next: &mut dyn FnMut(usize, &mut Spans) -> bool,
    ) -> bool {
        max.is_none_or(|max| count < max)
            && self.node(node, at, spans, &mut |end, spans| {
                self.repeat(node, (min, max, greedy), count + 1, end, at, spans, next)
            })
    }
}
