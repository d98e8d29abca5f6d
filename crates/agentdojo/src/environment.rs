//! A suite's environment as the JSON its host reads: the suite's `environment.yaml` (after the injection vectors
//! are filled in) in the shape of the host's types, which derive `serde::Deserialize` (Rust field names, enums by
//! variant name, maps in AgentDojo's insertion order as lists of pairs, every optional field written out).

use serde_json::{json, Value as Json};
use serde_yaml::Value;

use crate::suite::SuiteName;
use crate::DojoError;

pub(crate) fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn field<'a>(v: &'a Value, key: &str) -> Result<&'a Value, DojoError> {
    v.get(key).ok_or_else(|| DojoError::Data(format!("environment.yaml: missing `{key}`")))
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => String::new(),
        other => serde_yaml::to_string(other).unwrap_or_default().trim().to_owned(),
    }
}

fn number(v: &Value) -> Result<f64, DojoError> {
    v.as_f64().ok_or_else(|| DojoError::Data(format!("environment.yaml: expected a number, found {v:?}")))
}

fn seq(v: &Value) -> &[Value] {
    v.as_sequence().map(Vec::as_slice).unwrap_or(&[])
}

fn map(v: &Value) -> Vec<(String, &Value)> {
    v.as_mapping().map(|m| m.iter().map(|(k, v)| (text(k), v)).collect()).unwrap_or_default()
}

fn num(v: &Value) -> Result<Json, DojoError> {
    let x = number(v)?;
    serde_json::Number::from_f64(x)
        .map(Json::Number)
        .ok_or_else(|| DojoError::Data(format!("environment.yaml: {x} is not a JSON number")))
}

fn strings(v: &Value) -> Json {
    Json::Array(seq(v).iter().map(|s| Json::String(text(s))).collect())
}

/// A map as the host keeps it: `[key, value]` pairs in the file's order.
fn pairs(v: &Value, value: impl Fn(&Value) -> Result<Json, DojoError>) -> Result<Json, DojoError> {
    let mut out = Vec::new();
    for (k, v) in map(v) {
        out.push(json!([k, value(v)?]));
    }
    Ok(Json::Array(out))
}

/// The banking suite's environment.
fn banking_environment(env: &Value) -> Result<Json, DojoError> {
    let account = field(env, "bank_account")?;
    let txs = |key: &str| -> Result<Json, DojoError> {
        let mut out = Vec::new();
        for t in seq(field(account, key)?) {
            out.push(json!({
                "id": number(field(t, "id")?)? as u32,
                "sender": text(field(t, "sender")?),
                "recipient": text(field(t, "recipient")?),
                "amount": num(field(t, "amount")?)?,
                "subject": text(field(t, "subject")?),
                "date": text(field(t, "date")?),
                "recurring": field(t, "recurring")?.as_bool().unwrap_or(false),
            }));
        }
        Ok(Json::Array(out))
    };
    let user = field(env, "user_account")?;
    let u = |key: &str| -> Result<String, DojoError> { Ok(text(field(user, key)?)) };
    Ok(json!({
        "balance": num(field(account, "balance")?)?,
        "iban": text(field(account, "iban")?),
        "transactions": txs("transactions")?,
        "scheduled_transactions": txs("scheduled_transactions")?,
        "files": pairs(field(field(env, "filesystem")?, "files")?, |v| Ok(Json::String(text(v))))?,
        "user": {
            "first_name": u("first_name")?,
            "last_name": u("last_name")?,
            "street": u("street")?,
            "city": u("city")?,
        },
        "password": u("password")?,
    }))
}

/// The slack suite's environment.
fn slack_environment(env: &Value) -> Result<Json, DojoError> {
    let slack = field(env, "slack")?;
    let messages = |v: &Value| -> Result<Json, DojoError> {
        let mut out = Vec::new();
        for m in seq(v) {
            out.push(json!({
                "sender": text(field(m, "sender")?),
                "recipient": text(field(m, "recipient")?),
                "body": text(field(m, "body")?),
            }));
        }
        Ok(Json::Array(out))
    };
    let web = field(env, "web")?;
    Ok(json!({
        "users": strings(field(slack, "users")?),
        "channels": strings(field(slack, "channels")?),
        "user_channels": pairs(field(slack, "user_channels")?, |v| Ok(strings(v)))?,
        "user_inbox": pairs(field(slack, "user_inbox")?, messages)?,
        "channel_inbox": pairs(field(slack, "channel_inbox")?, messages)?,
        "web_content": pairs(field(web, "web_content")?, |v| Ok(Json::String(text(v))))?,
        "web_requests": strings(field(web, "web_requests")?),
    }))
}

/// How a YAML value becomes a field of a record.
#[derive(Debug, Clone, Copy)]
enum Field {
    /// A string.
    Str,
    /// A string, or null when null or absent.
    OptStr,
    /// A number.
    Num,
    /// A boolean, `false` when absent.
    Bool,
    /// A list of strings, empty when absent.
    Strings,
    /// A date-time in ISO form (the host reads it).
    Time,
}

/// A record from a YAML mapping; `fields` are (YAML key, Rust field, kind).
fn record(ty: &str, v: &Value, fields: &[(&str, &str, Field)]) -> Result<serde_json::Map<String, Json>, DojoError> {
    let mut out = serde_json::Map::new();
    for (key, name, kind) in fields {
        let value = v.get(*key);
        let need = || value.ok_or_else(|| DojoError::Data(format!("environment.yaml: a `{ty}` lacks `{key}`")));
        let written = match kind {
            Field::Str | Field::Time => Json::String(text(need()?)),
            Field::OptStr => match value {
                None | Some(Value::Null) => Json::Null,
                Some(v) => Json::String(text(v)),
            },
            Field::Num => num(need()?)?,
            Field::Bool => Json::Bool(value.and_then(Value::as_bool).unwrap_or(false)),
            Field::Strings => value.map(strings).unwrap_or_else(|| json!([])),
        };
        out.insert((*name).to_owned(), written);
    }
    Ok(out)
}

fn records(ty: &str, list: &Value, fields: &[(&str, &str, Field)]) -> Result<Json, DojoError> {
    let items: Vec<Json> =
        seq(list).iter().map(|v| record(ty, v, fields).map(Json::Object)).collect::<Result<_, _>>()?;
    Ok(Json::Array(items))
}

fn event(v: &Value) -> Result<Json, DojoError> {
    let mut event = record(
        "CalendarEvent",
        v,
        &[
            ("id_", "id_", Field::Str),
            ("title", "title", Field::Str),
            ("description", "description", Field::Str),
            ("start_time", "start_time", Field::Time),
            ("end_time", "end_time", Field::Time),
            ("location", "location", Field::OptStr),
            ("participants", "participants", Field::Strings),
            ("all_day", "all_day", Field::Bool),
        ],
    )?;
    let status = match v.get("status").map(text).as_deref() {
        Some("canceled") => "Canceled",
        _ => "Confirmed",
    };
    event.insert("status".into(), json!(status));
    Ok(Json::Object(event))
}

fn email(v: &Value) -> Result<Json, DojoError> {
    let mut email = record(
        "Email",
        v,
        &[
            ("id_", "id_", Field::Str),
            ("sender", "sender", Field::Str),
            ("recipients", "recipients", Field::Strings),
            ("cc", "cc", Field::Strings),
            ("bcc", "bcc", Field::Strings),
            ("subject", "subject", Field::Str),
            ("body", "body", Field::Str),
            ("read", "read", Field::Bool),
            ("timestamp", "timestamp", Field::Time),
        ],
    )?;
    let status = match v.get("status").map(text).as_deref() {
        Some("received") => "Received",
        Some("draft") => "Draft",
        _ => "Sent",
    };
    let mut attachments = Vec::new();
    for a in v.get("attachments").map(seq).unwrap_or_default() {
        attachments.push(match a {
            Value::Mapping(_) => json!({ "Event": event(a)? }),
            other => json!({ "File": text(other) }),
        });
    }
    email.insert("status".into(), json!(status));
    email.insert("attachments".into(), Json::Array(attachments));
    Ok(Json::Object(email))
}

/// The environment's `calendar`, as the host's `Calendar`.
fn calendar(v: &Value) -> Result<Json, DojoError> {
    let events: Vec<Json> = seq(field(v, "initial_events")?).iter().map(event).collect::<Result<_, _>>()?;
    Ok(json!({
        "current_day": text(field(v, "current_day")?),
        "account_email": text(field(v, "account_email")?),
        "events": events,
    }))
}

/// The environment's `inbox`: the account and its emails (the host's `Inbox` derives its contact list).
fn inbox(v: &Value) -> Result<Json, DojoError> {
    let emails: Vec<Json> = seq(field(v, "initial_emails")?).iter().map(email).collect::<Result<_, _>>()?;
    Ok(json!({ "account_email": text(field(v, "account_email")?), "emails": emails }))
}

/// The travel suite's environment.
fn travel_environment(env: &Value) -> Result<Json, DojoError> {
    use Field::{Num, Str, Strings, Time};
    let user = record(
        "User",
        field(env, "user")?,
        &[
            ("first_name", "first_name", Str),
            ("last_name", "last_name", Str),
            ("ID_number", "id_number", Str),
            ("email", "email", Str),
            ("phone_number", "phone_number", Str),
            ("address", "address", Str),
            ("passport_number", "passport_number", Str),
            ("bank_account_number", "bank_account_number", Str),
            ("credit_card_number", "credit_card_number", Str),
        ],
    )?;
    let hotels = records(
        "Hotel",
        field(field(env, "hotels")?, "hotel_list")?,
        &[
            ("name", "name", Str),
            ("city", "city", Str),
            ("rating", "rating", Num),
            ("price_min", "price_min", Num),
            ("price_max", "price_max", Num),
            ("address", "address", Str),
            ("reviews", "reviews", Strings),
        ],
    )?;
    let restaurants = records(
        "Restaurant",
        field(field(env, "restaurants")?, "restaurant_list")?,
        &[
            ("name", "name", Str),
            ("city", "city", Str),
            ("address", "address", Str),
            ("rating", "rating", Num),
            ("price_per_person", "price_per_person", Num),
            ("operating_hours", "operating_hours", Str),
            ("reviews", "reviews", Strings),
            ("contact_information", "contact_information", Str),
            ("cuisine_type", "cuisine_type", Str),
            ("dietary_restrictions", "dietary_restrictions", Str),
        ],
    )?;
    let companies = records(
        "CarRentalCompany",
        field(field(env, "car_rental")?, "company_list")?,
        &[
            ("name", "name", Str),
            ("city", "city", Str),
            ("address", "address", Str),
            ("rating", "rating", Num),
            ("price_per_day", "price_per_day", Num),
            ("reviews", "reviews", Strings),
            ("contact_information", "contact_information", Str),
            ("car_types_available", "car_types_available", Strings),
            ("fuel_options", "fuel_options", Strings),
        ],
    )?;
    let flights = records(
        "Flight",
        field(field(env, "flights")?, "flight_list")?,
        &[
            ("airline", "airline", Str),
            ("flight_number", "flight_number", Str),
            ("departure_city", "departure_city", Str),
            ("arrival_city", "arrival_city", Str),
            ("departure_time", "departure_time", Time),
            ("arrival_time", "arrival_time", Time),
            ("price", "price", Num),
            ("contact_information", "contact_information", Str),
        ],
    )?;
    let r = field(env, "reservation")?;
    let kind = match r.get("reservation_type").map(text).as_deref() {
        Some("hotel") => json!("Hotel"),
        Some("car") => json!("Car"),
        Some("restaurant") => json!("Restaurant"),
        _ => Json::Null,
    };
    let mut reservation = record(
        "Reservation",
        r,
        &[
            ("title", "title", Str),
            ("start_time", "start_time", Time),
            ("end_time", "end_time", Time),
            ("contact_information", "contact_information", Str),
        ],
    )?;
    reservation.insert("reservation_type".into(), kind);
    Ok(json!({
        "user": user,
        "hotels": hotels,
        "restaurants": restaurants,
        "car_rental": companies,
        "flights": flights,
        "reservation": reservation,
        "inbox": inbox(field(env, "inbox")?)?,
        "calendar": calendar(field(env, "calendar")?)?,
    }))
}

/// The workspace suite's environment (its includes resolved).
fn workspace_environment(env: &Value) -> Result<Json, DojoError> {
    let drive = field(env, "cloud_drive")?;
    let mut files = Vec::new();
    for f in seq(field(drive, "initial_files")?) {
        let mut file = record(
            "CloudDriveFile",
            f,
            &[
                ("id_", "id_", Field::Str),
                ("filename", "filename", Field::Str),
                ("content", "content", Field::Str),
                ("owner", "owner", Field::Str),
                ("last_modified", "last_modified", Field::Time),
            ],
        )?;
        let shared =
            pairs(f.get("shared_with").unwrap_or(&Value::Null), |permission| match text(permission).as_str() {
                "r" => Ok(json!("R")),
                "rw" => Ok(json!("Rw")),
                other => Err(DojoError::Data(format!("environment.yaml: a sharing permission `{other}`"))),
            })?;
        // Python's `len` counts characters.
        let size = text(field(f, "content")?).chars().count();
        file.insert("shared_with".into(), shared);
        file.insert("size".into(), json!(size));
        files.push(Json::Object(file));
    }
    Ok(json!({
        "inbox": inbox(field(env, "inbox")?)?,
        "calendar": calendar(field(env, "calendar")?)?,
        "cloud_drive": { "account_email": text(field(drive, "account_email")?), "files": files },
    }))
}

/// The filled environment as the suite's host reads it.
pub fn environment(suite: SuiteName, env: &Value) -> Result<Json, DojoError> {
    match suite {
        SuiteName::Banking => banking_environment(env),
        SuiteName::Slack => slack_environment(env),
        SuiteName::Travel => travel_environment(env),
        SuiteName::Workspace => workspace_environment(env),
    }
}
