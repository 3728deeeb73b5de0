//! The strict schema: good answers parse, every kind of bad one is refused by name.

use super::{parse_output, SchemaError, Shape, Want};

const TOOL: &str = r#"{"output_type":"tool_call","reasoning":{"intent_understanding":"the owner wants the plan recorded","tool_selection_reason":"record_plan is the only skill that fits"},"confidence":{"overall":0.82},"tool_calls":[{"tool_name":"record_plan","parameters":{"steps":3},"parameter_sources":{"steps":"context"}}]}"#;

fn field_of(e: SchemaError) -> String {
    match e {
        SchemaError::Field { field, .. } => field.to_owned(),
        SchemaError::Json(j) => format!("json: {j}"),
    }
}

#[test]
fn a_good_answer_parses() {
    let out = parse_output(TOOL, Want::Plain).unwrap();
    assert_eq!(out.proposal.tools()[0].tool, "record_plan");
    assert!((out.proposal.confidence - 0.82).abs() < 1e-9);
    let text = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"a greeting","no_tool_reason":"nothing to do"},"confidence":{"overall":0.9},"text_response":"Hello!"}"#;
    assert_eq!(
        parse_output(text, Want::Plain).unwrap().proposal.shape,
        Shape::Text("Hello!".into())
    );
    let ask = r#"{"output_type":"clarification_needed","reasoning":{"ambiguity_detected":"which photos is unclear","possible_interpretations":["all","this year's"]},"confidence":{"overall":0.4},"clarification_question":"Which photos?"}"#;
    assert!(matches!(
        parse_output(ask, Want::Plain).unwrap().proposal.shape,
        Shape::Clarify { .. }
    ));
}

#[test]
fn bad_answers_are_refused_by_name() {
    let cases: Vec<(String, Want, &str)> = vec![
        ("I think we should approve".into(), Want::Plain, "json"),
        (TOOL[..TOOL.len() - 20].into(), Want::Plain, "json"),
        (TOOL.replace("0.82", "1.5"), Want::Plain, "confidence.overall"),
        (TOOL.replace(r#""tool_selection_reason":"record_plan is the only skill that fits""#, r#""tool_selection_reason":"""#), Want::Plain, "reasoning.tool_selection_reason"),
        (TOOL.replace("the owner wants the plan recorded", "ok").replace("record_plan is the only skill that fits", "ok"), Want::Plain, "reasoning"),
        (TOOL.replace(r#""output_type":"tool_call""#, r#""output_type":"execute""#), Want::Plain, "output_type"),
        (TOOL.replace(r#""confidence""#, r#""extra":1,"confidence""#), Want::Plain, "json"),
        (TOOL.replace(r#""tool_calls":[{"tool_name":"record_plan","parameters":{"steps":3},"parameter_sources":{"steps":"context"}}]"#, r#""tool_calls":[]"#), Want::Plain, "tool_calls"),
        (TOOL.replace(r#""steps":"context""#, r#""steps":"guess""#), Want::Plain, "tool_calls.parameter_sources"),
        (TOOL.into(), Want::Vote, "vote"),
        (TEXT.into(), Want::Draft, "draft"),
        (with(r#""draft":{"topic":"tea"}"#), Want::Plain, "draft"),
        (with(r#""draft":{"topic":"tea"}"#), Want::Review, "draft"),
        (with(r#""draft":{"topic":""}"#), Want::Draft, "draft.topic"),
        (TOOL.replace(r#""needs_confirmation""#, "x").replace("}]}", r#"}],"draft":{"topic":"tea"}}"#), Want::Draft, "output_type"),
        (with(r#""review":{"verdict":"rejected","rules":[]}"#), Want::Review, "review.rules"),
        (with(r#""review":{"verdict":"approved","rules":["ng-politics"]}"#), Want::Review, "review.rules"),
        (with(r#""review":{"verdict":"maybe"}"#), Want::Review, "json"),
        (with(&evaluation("1.2", "0.5")), Want::Evaluation, "evaluation.scores.collaboration"),
        (with(&evaluation("0.5", "1.5")), Want::Evaluation, "evaluation.proposed_params"),
    ];
    for (text, asked, want) in cases {
        let got = field_of(parse_output(&text, asked).unwrap_err());
        assert!(got.starts_with(want), "{text}\n want {want}, got {got}");
    }
}

const TEXT: &str = r#"{"output_type":"text_response","reasoning":{"intent_understanding":"a post for the timeline","no_tool_reason":"a post is words"},"confidence":{"overall":0.8},"text_response":"Tea on the balcony this morning."}"#;

/// [`TEXT`] with one more field.
fn with(extra: &str) -> String {
    format!("{},{extra}}}", &TEXT[..TEXT.len() - 1])
}

fn evaluation(collaboration: &str, risk: &str) -> String {
    format!(
        r#""evaluation":{{"scores":{{"decision_quality":0.7,"collaboration":{collaboration},"effectiveness":0.6,"parameter_balance":0.8}},"needs_retuning":true,"proposed_params":{{"risk_tolerance":{risk},"innovation_weight":0.5,"safety_weight":0.5,"thoroughness":0.5,"consensus_flexibility":0.5}}}}"#
    )
}

#[test]
fn each_role_gets_the_fields_it_asked_for() {
    let d = parse_output(&with(r#""draft":{"topic":"tea"}"#), Want::Draft).unwrap();
    assert_eq!(d.draft.unwrap().topic, "tea");
    let r = parse_output(
        &with(r#""review":{"verdict":"rejected","rules":["ng-politics"]}"#),
        Want::Review,
    )
    .unwrap();
    assert_eq!(r.review.unwrap().rules, ["ng-politics"]);
    let e = parse_output(&with(&evaluation("0.4", "0.3")), Want::Evaluation).unwrap();
    let e = e.evaluation.unwrap();
    assert!(e.needs_retuning && (e.scores.collaboration - 0.4).abs() < 1e-9);
    assert!((e.proposed_params.unwrap().risk_tolerance - 0.3).abs() < 1e-9);
}

/// The JSON Schema sent with a request agrees with the parse: what the parse accepts the schema
/// accepts, and the shapes the parse refuses for an ask the schema refuses too (the schema is
/// what a constrained server can enforce; the parse stays the judge).
#[test]
fn the_json_schema_accepts_what_the_parse_accepts_and_refuses_other_shapes() {
    use super::json_schema;
    let valid = |want: Want, tools: &[&str], text: &str| {
        let schema = json_schema(want, tools);
        let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
        validator.is_valid(&serde_json::from_str(text).unwrap())
    };
    let vote = with(
        r#""vote":{"vote":"approve_with_modification","proposed_approach":"1. Copy","concerns":["x"],"accepts":["panda"]}"#,
    );
    let good: Vec<(Want, String)> = vec![
        (Want::Plain, TOOL.into()),
        (Want::Plain, TEXT.into()),
        (Want::Vote, vote.clone()),
        (Want::Draft, with(r#""draft":{"topic":"tea"}"#)),
        (
            Want::Review,
            with(r#""review":{"verdict":"rejected","rules":["ng-politics"]}"#),
        ),
        (Want::Evaluation, with(&evaluation("0.4", "0.3"))),
        (
            Want::Evaluation,
            with(
                r#""evaluation":{"scores":{"decision_quality":0.7,"collaboration":0.4,"effectiveness":0.6,"parameter_balance":0.8},"needs_retuning":false,"proposed_params":null}"#,
            ),
        ),
    ];
    for (want, text) in &good {
        assert!(parse_output(text, *want).is_ok(), "{text}");
        assert!(valid(*want, &["record_plan"], text), "{want:?}: {text}");
    }
    let bad: Vec<(Want, &[&str], String)> = vec![
        // A tool that is not on the list.
        (Want::Plain, &["run_skill"], TOOL.into()),
        // A vote asked, a tool call given.
        (Want::Vote, &[], TOOL.into()),
        // The extra object missing, or another one.
        (Want::Draft, &[], TEXT.into()),
        (Want::Review, &[], with(r#""draft":{"topic":"tea"}"#)),
        (
            Want::Vote,
            &[],
            vote.replace("approve_with_modification", "maybe"),
        ),
        (
            Want::Vote,
            &[],
            vote.replace(r#"["panda"]"#, r#"["owner"]"#),
        ),
        (Want::Evaluation, &[], with(&evaluation("1.2", "0.5"))),
        (
            Want::Plain,
            &[],
            TOOL.replace(r#""confidence""#, r#""extra":1,"confidence""#),
        ),
    ];
    for (want, tools, text) in &bad {
        assert!(!valid(*want, tools, text), "{want:?} {tools:?}: {text}");
    }
}
