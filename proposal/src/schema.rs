//! The output schema as JSON Schema, sent with each request so that a server able to constrain
//! its output (OpenAI-compatible `response_format: json_schema`, Ollama `format`, llama.cpp and
//! vLLM grammars) cannot answer in another shape. It describes what [`crate::parse_output`]
//! accepts for one [`Want`]; the strict parse still runs on every answer, because a server may
//! ignore the schema and the schema cannot say everything (20 characters of reasoning, the one
//! extra object per ask).

use serde_json::{json, Value};

use crate::Want;

fn unit() -> Value {
    json!({"type": "number", "minimum": 0, "maximum": 1})
}

fn strings() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

fn confidence() -> Value {
    json!({
        "type": "object",
        "properties": {"overall": unit(), "intent": unit(), "parameters": unit()},
        "required": ["overall"],
        "additionalProperties": false,
    })
}

/// A `text_response` whose reasoning says why no tool is used, with `extra` (name, schema)
/// required beside it when given.
fn text_response(extra: Option<(&str, Value)>) -> Value {
    let mut properties = json!({
        "output_type": {"const": "text_response"},
        "reasoning": {
            "type": "object",
            "properties": {
                "intent_understanding": {"type": "string", "minLength": 1},
                "no_tool_reason": {"type": "string", "minLength": 1},
                "response_strategy": {"type": "string"},
                "context_used": strings(),
            },
            "required": ["intent_understanding", "no_tool_reason"],
            "additionalProperties": false,
        },
        "confidence": confidence(),
        "text_response": {"type": "string", "minLength": 1},
    });
    let mut required = vec!["output_type", "reasoning", "confidence", "text_response"];
    if let Some((name, schema)) = &extra {
        properties[*name] = schema.clone();
        required.push(name);
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// A `tool_call` naming only `tools` (any name when the list is empty).
fn tool_call(tools: &[&str]) -> Value {
    let name = if tools.is_empty() {
        json!({"type": "string", "minLength": 1, "maxLength": 64})
    } else {
        json!({"type": "string", "enum": tools})
    };
    json!({
        "type": "object",
        "properties": {
            "output_type": {"const": "tool_call"},
            "reasoning": {
                "type": "object",
                "properties": {
                    "intent_understanding": {"type": "string", "minLength": 1},
                    "tool_selection_reason": {"type": "string", "minLength": 1},
                    "context_used": strings(),
                    "alternatives_considered": strings(),
                },
                "required": ["intent_understanding", "tool_selection_reason"],
                "additionalProperties": false,
            },
            "confidence": confidence(),
            "tool_calls": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "tool_name": name,
                        "parameters": {"type": "object"},
                        "parameter_sources": {
                            "type": "object",
                            "additionalProperties": {
                                "enum": ["user_message", "context", "inferred", "default"]
                            },
                        },
                    },
                    "required": ["tool_name", "parameters"],
                    "additionalProperties": false,
                },
            },
            "needs_confirmation": {"type": "boolean"},
            "confirmation_question": {"type": "string"},
        },
        "required": ["output_type", "reasoning", "confidence", "tool_calls"],
        "additionalProperties": false,
    })
}

fn clarification() -> Value {
    json!({
        "type": "object",
        "properties": {
            "output_type": {"const": "clarification_needed"},
            "reasoning": {
                "type": "object",
                "properties": {
                    "ambiguity_detected": {"type": "string", "minLength": 1},
                    "possible_interpretations": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                },
                "required": ["ambiguity_detected", "possible_interpretations"],
                "additionalProperties": false,
            },
            "confidence": confidence(),
            "clarification_question": {"type": "string", "minLength": 1},
            "options": strings(),
        },
        "required": ["output_type", "reasoning", "confidence", "clarification_question"],
        "additionalProperties": false,
    })
}

fn params() -> Value {
    let names = [
        "risk_tolerance",
        "innovation_weight",
        "safety_weight",
        "thoroughness",
        "consensus_flexibility",
    ];
    let properties: serde_json::Map<String, Value> =
        names.iter().map(|n| (n.to_string(), unit())).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": names,
        "additionalProperties": false,
    })
}

/// The JSON Schema of an answer to an ask that wants `want`. `tools` are the only tool names a
/// `tool_call` may use (a [`Want::Plain`] ask; empty: any name, checked after the parse).
pub fn json_schema(want: Want, tools: &[&str]) -> Value {
    match want {
        Want::Plain => json!({"anyOf": [tool_call(tools), text_response(None), clarification()]}),
        Want::Vote => text_response(Some((
            "vote",
            json!({
                "type": "object",
                "properties": {
                    "vote": {"enum": ["approve", "approve_with_modification", "reject"]},
                    "proposed_approach": {"type": "string", "maxLength": 4000},
                    "concerns": {"type": "array", "items": {"type": "string", "maxLength": 500}, "maxItems": 32},
                    "accepts": {"type": "array", "items": {"enum": ["panda", "gorilla", "triceratops"]}, "uniqueItems": true},
                },
                "required": ["vote", "proposed_approach"],
                "additionalProperties": false,
            }),
        ))),
        Want::Draft => text_response(Some((
            "draft",
            json!({
                "type": "object",
                "properties": {"topic": {"type": "string", "minLength": 1, "maxLength": 64}},
                "required": ["topic"],
                "additionalProperties": false,
            }),
        ))),
        Want::Review => text_response(Some((
            "review",
            json!({
                "type": "object",
                "properties": {
                    "verdict": {"enum": ["approved", "rejected"]},
                    "rules": strings(),
                },
                "required": ["verdict"],
                "additionalProperties": false,
            }),
        ))),
        Want::Evaluation => text_response(Some((
            "evaluation",
            json!({
                "type": "object",
                "properties": {
                    "scores": {
                        "type": "object",
                        "properties": {
                            "decision_quality": unit(),
                            "collaboration": unit(),
                            "effectiveness": unit(),
                            "parameter_balance": unit(),
                        },
                        "required": ["decision_quality", "collaboration", "effectiveness", "parameter_balance"],
                        "additionalProperties": false,
                    },
                    "needs_retuning": {"type": "boolean"},
                    "proposed_params": {"anyOf": [params(), {"type": "null"}]},
                },
                "required": ["scores", "needs_retuning"],
                "additionalProperties": false,
            }),
        ))),
    }
}

/// The name a schema goes by in an OpenAI-compatible `response_format`.
pub fn schema_name(want: Want) -> &'static str {
    match want {
        Want::Plain => "soul_proposal",
        Want::Vote => "soul_opinion",
        Want::Draft => "soul_draft",
        Want::Review => "soul_review",
        Want::Evaluation => "soul_evaluation",
    }
}
