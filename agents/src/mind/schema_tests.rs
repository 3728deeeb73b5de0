//! The strict schema: good answers parse, every kind of bad one is refused by name.

use super::schema::{parse_output, SchemaError, Shape};

const TOOL: &str = r#"{"output_type":"tool_call","reasoning":{"intent_understanding":"the owner wants the plan recorded","tool_selection_reason":"record_plan is the only skill that fits"},"confidence":{"overall":0.82},"tool_calls":[{"tool_name":"record_plan","parameters":{"steps":3},"parameter_sources":{"steps":"context"}}]}"#;

fn field_of(e: SchemaError) -> String {
    match e {
        SchemaError::Field { field, .. } => field.to_owned(),
        SchemaError::Json(j) => format!("json: {j}"),
    }
}

#[test]
fn a_good_answer_parses() {
    let out = parse_output(TOOL, false).unwrap();
    assert_eq!(out.proposal.tools()[0].tool, "record_plan");
    assert!((out.proposal.confidence - 0.82).abs() < 1e-9);
    let text = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"a greeting","no_tool_reason":"nothing to do"},"confidence":{"overall":0.9},"text_response":"Hello!"}"#;
    assert_eq!(
        parse_output(text, false).unwrap().proposal.shape,
        Shape::Text("Hello!".into())
    );
    let ask = r#"{"output_type":"clarification_needed","reasoning":{"ambiguity_detected":"which photos is unclear","possible_interpretations":["all","this year's"]},"confidence":{"overall":0.4},"clarification_question":"Which photos?"}"#;
    assert!(matches!(
        parse_output(ask, false).unwrap().proposal.shape,
        Shape::Clarify { .. }
    ));
}

#[test]
fn bad_answers_are_refused_by_name() {
    let cases: Vec<(String, bool, &str)> = vec![
        ("I think we should approve".into(), false, "json"),
        (TOOL[..TOOL.len() - 20].into(), false, "json"),
        (TOOL.replace("0.82", "1.5"), false, "confidence.overall"),
        (TOOL.replace(r#""tool_selection_reason":"record_plan is the only skill that fits""#, r#""tool_selection_reason":"""#), false, "reasoning.tool_selection_reason"),
        (TOOL.replace("the owner wants the plan recorded", "ok").replace("record_plan is the only skill that fits", "ok"), false, "reasoning"),
        (TOOL.replace(r#""output_type":"tool_call""#, r#""output_type":"execute""#), false, "output_type"),
        (TOOL.replace(r#""confidence""#, r#""extra":1,"confidence""#), false, "json"),
        (TOOL.replace(r#""tool_calls":[{"tool_name":"record_plan","parameters":{"steps":3},"parameter_sources":{"steps":"context"}}]"#, r#""tool_calls":[]"#), false, "tool_calls"),
        (TOOL.replace(r#""steps":"context""#, r#""steps":"guess""#), false, "tool_calls.parameter_sources"),
        (TOOL.into(), true, "vote"),
    ];
    for (text, vote, want) in cases {
        let got = field_of(parse_output(&text, vote).unwrap_err());
        assert!(got.starts_with(want), "{text}\n want {want}, got {got}");
    }
}
