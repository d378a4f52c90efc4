//! The list of every message code (the i18n tables and the contract are tested against it).

use super::*;

/// Every message code, read from the generated TypeScript declaration of [`Message`] (so a new
/// variant is listed without anyone remembering to: the i18n tables are tested against this).
pub fn all_codes() -> Vec<String> {
    use ts_rs::TS;
    let config = ts_rs::Config::new();
    let declarations = [
        Message::decl(&config),
        SyntaxMessage::decl(&config),
        RuntimeMessage::decl(&config),
        Mismatch::decl(&config),
        AutogradMessage::decl(&config),
        NpuMessage::decl(&config),
        BracketItem::decl(&config),
        Token::decl(&config),
        Expected::decl(&config),
        GrammarMessage::decl(&config),
        NameSlot::decl(&config),
        After::decl(&config),
        Assignee::decl(&config),
        LiteralMessage::decl(&config),
        UnsupportedMessage::decl(&config),
        Construct::decl(&config),
        OperationMessage::decl(&config),
        StatementMessage::decl(&config),
        ClassMessage::decl(&config),
        OptionFeature::decl(&config),
        AutogradCallMessage::decl(&config),
        AutogradDetail::decl(&config),
        CompilerReason::decl(&config),
        LoweringReason::decl(&config),
        StepFault::decl(&config),
        DerivationReason::decl(&config),
    ];
    let declarations: Vec<String> = declarations
        .into_iter()
        .chain(library::declarations(&config))
        .chain(tensor::declarations(&config))
        .chain(npu_checks::declarations(&config))
        .collect();
    let mut codes = Vec::new();
    for declaration in &declarations {
        let mut rest = declaration.as_str();
        while let Some(start) = rest.find("\"code\": \"") {
            let after = &rest[start + 9..];
            let end = after.find('"').unwrap_or(0);
            codes.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    codes
}
