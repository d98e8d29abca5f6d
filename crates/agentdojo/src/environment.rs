//! A suite's environment as Rust: the constructor `fn <name>() -> Environment` a host calls, generated from the
//! suite's `environment.yaml` (after the injection vectors are filled in).

use serde_yaml::Value;

use crate::suite::SuiteName;
use crate::DojoError;

pub(crate) fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn owned(s: &str) -> String {
    format!("{s:?}.to_string()")
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

/// `fn {name}() -> Environment { .. }` for the banking suite's parsed environment.
fn banking_environment(name: &str, env: &Value) -> Result<String, DojoError> {
    let account = field(env, "bank_account")?;
    let txs = |key: &str| -> Result<String, DojoError> {
        let mut out = Vec::new();
        for t in seq(field(account, key)?) {
            out.push(format!(
                "tx({}, {}, {}, {:?}, {}, {}, {})",
                number(field(t, "id")?)? as u32,
                lit(&text(field(t, "sender")?)),
                lit(&text(field(t, "recipient")?)),
                number(field(t, "amount")?)?,
                lit(&text(field(t, "subject")?)),
                lit(&text(field(t, "date")?)),
                field(t, "recurring")?.as_bool().unwrap_or(false),
            ));
        }
        Ok(format!("vec![{}]", out.join(", ")))
    };
    let files: Vec<String> = map(field(field(env, "filesystem")?, "files")?)
        .into_iter()
        .map(|(k, v)| format!("({}, {})", owned(&k), owned(&text(v))))
        .collect();
    let user = field(env, "user_account")?;
    let u = |key: &str| -> Result<String, DojoError> { Ok(owned(&text(field(user, key)?))) };
    Ok(format!(
        "fn {name}() -> Environment {{\n        Environment {{\n            balance: {:?},\n            iban: {},\n            \
         transactions: {},\n            scheduled_transactions: {},\n            files: vec![{}],\n            user: \
         UserInfo {{ first_name: {}, last_name: {}, street: {}, city: {} }},\n            password: {},\n        }}\n    \
         }}\n",
        number(field(account, "balance")?)?,
        owned(&text(field(account, "iban")?)),
        txs("transactions")?,
        txs("scheduled_transactions")?,
        files.join(", "),
        u("first_name")?,
        u("last_name")?,
        u("street")?,
        u("city")?,
        u("password")?,
    ))
}

/// `fn {name}() -> Environment { .. }` for the slack suite's parsed environment.
fn slack_environment(name: &str, env: &Value) -> Result<String, DojoError> {
    let slack = field(env, "slack")?;
    let strings =
        |v: &Value| format!("strings(&[{}])", seq(v).iter().map(|s| lit(&text(s))).collect::<Vec<_>>().join(", "));
    let messages = |v: &Value| -> Result<String, DojoError> {
        let mut out = Vec::new();
        for m in seq(v) {
            out.push(format!(
                "msg({}, {}, {})",
                lit(&text(field(m, "sender")?)),
                lit(&text(field(m, "recipient")?)),
                lit(&text(field(m, "body")?))
            ));
        }
        Ok(format!("vec![{}]", out.join(", ")))
    };
    let user_channels: Vec<String> = map(field(slack, "user_channels")?)
        .into_iter()
        .map(|(k, v)| format!("({}, {})", owned(&k), strings(v)))
        .collect();
    let inbox = |key: &str| -> Result<String, DojoError> {
        let mut out = Vec::new();
        for (k, v) in map(field(slack, key)?) {
            out.push(format!("({}, {})", owned(&k), messages(v)?));
        }
        Ok(format!("vec![{}]", out.join(", ")))
    };
    let web = field(env, "web")?;
    let content: Vec<String> = map(field(web, "web_content")?)
        .into_iter()
        .map(|(k, v)| format!("({}, {})", owned(&k), owned(&text(v))))
        .collect();
    Ok(format!(
        "fn {name}() -> Environment {{\n        Environment {{\n            users: {},\n            channels: {},\n            \
         user_channels: vec![{}],\n            user_inbox: {},\n            channel_inbox: {},\n            web_content: \
         vec![{}],\n            web_requests: {},\n        }}\n    }}\n",
        strings(field(slack, "users")?),
        strings(field(slack, "channels")?),
        user_channels.join(", "),
        inbox("user_inbox")?,
        inbox("channel_inbox")?,
        content.join(", "),
        strings(field(web, "web_requests")?),
    ))
}

/// How a YAML value becomes a Rust field of a record.
#[derive(Debug, Clone, Copy)]
enum Field {
    /// A string: `"..".to_string()`.
    Str,
    /// A string or null: `Some("..".to_string())` / `None`.
    OptStr,
    /// A number as `f64`.
    Num,
    /// A boolean, `false` when absent.
    Bool,
    /// A list of strings, empty when absent.
    Strings,
    /// A date-time in ISO form: `dt("..")`.
    Time,
}

/// `Type { field: value, .. }` from a YAML mapping; `fields` are (YAML key, Rust field, kind).
fn record(ty: &str, v: &Value, fields: &[(&str, &str, Field)]) -> Result<String, DojoError> {
    let mut out = Vec::new();
    for (key, name, kind) in fields {
        let value = v.get(*key);
        let need = || value.ok_or_else(|| DojoError::Data(format!("environment.yaml: a `{ty}` lacks `{key}`")));
        let written = match kind {
            Field::Str => owned(&text(need()?)),
            Field::OptStr => match value {
                None | Some(Value::Null) => "None".to_owned(),
                Some(v) => format!("Some({})", owned(&text(v))),
            },
            Field::Num => format!("{:?}", number(need()?)?),
            Field::Bool => value.and_then(Value::as_bool).unwrap_or(false).to_string(),
            Field::Strings => format!(
                "vec![{}]",
                value.map(seq).unwrap_or_default().iter().map(|s| owned(&text(s))).collect::<Vec<_>>().join(", ")
            ),
            Field::Time => format!("dt({})", lit(&text(need()?))),
        };
        out.push(format!("{name}: {written}"));
    }
    Ok(format!("{ty} {{ {} }}", out.join(", ")))
}

fn records(ty: &str, list: &Value, fields: &[(&str, &str, Field)]) -> Result<String, DojoError> {
    let items: Vec<String> = seq(list).iter().map(|v| record(ty, v, fields)).collect::<Result<_, _>>()?;
    Ok(format!("vec![{}]", items.join(",\n            ")))
}

fn event(v: &Value) -> Result<String, DojoError> {
    let base = record(
        "super::CalendarEvent",
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
        Some("canceled") => "super::EventStatus::Canceled",
        _ => "super::EventStatus::Confirmed",
    };
    Ok(format!("{}, status: {status} }}", base.trim_end_matches(" }")))
}

fn email(v: &Value) -> Result<String, DojoError> {
    let base = record(
        "super::Email",
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
        Some("received") => "super::EmailStatus::Received",
        Some("draft") => "super::EmailStatus::Draft",
        _ => "super::EmailStatus::Sent",
    };
    let mut attachments = Vec::new();
    for a in v.get("attachments").map(seq).unwrap_or_default() {
        attachments.push(match a {
            Value::Mapping(_) => format!("super::Attachment::Event({})", event(a)?),
            other => format!("super::Attachment::File({})", owned(&text(other))),
        });
    }
    Ok(format!("{}, status: {status}, attachments: vec![{}] }}", base.trim_end_matches(" }"), attachments.join(", ")))
}

/// `Calendar { .. }` from the environment's `calendar`.
fn calendar(v: &Value) -> Result<String, DojoError> {
    let events: Vec<String> = seq(field(v, "initial_events")?).iter().map(event).collect::<Result<_, _>>()?;
    Ok(format!(
        "Calendar {{ current_day: {}, account_email: {}, events: vec![{}] }}",
        owned(&text(field(v, "current_day")?)),
        owned(&text(field(v, "account_email")?)),
        events.join(",\n            ")
    ))
}

/// `Inbox::new(..)` from the environment's `inbox`.
fn inbox(v: &Value) -> Result<String, DojoError> {
    let emails: Vec<String> = seq(field(v, "initial_emails")?).iter().map(email).collect::<Result<_, _>>()?;
    Ok(format!("Inbox::new({}, vec![{}])", lit(&text(field(v, "account_email")?)), emails.join(",\n            ")))
}

/// `fn {name}() -> Environment { .. }` for the travel suite's parsed environment.
fn travel_environment(name: &str, env: &Value) -> Result<String, DojoError> {
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
        Some("hotel") => "Some(ReservationType::Hotel)",
        Some("car") => "Some(ReservationType::Car)",
        Some("restaurant") => "Some(ReservationType::Restaurant)",
        _ => "None",
    };
    let reservation = record(
        "Reservation",
        r,
        &[
            ("title", "title", Str),
            ("start_time", "start_time", Time),
            ("end_time", "end_time", Time),
            ("contact_information", "contact_information", Str),
        ],
    )?;
    let reservation = format!("{}, reservation_type: {kind} }}", reservation.trim_end_matches(" }"));
    Ok(format!(
        "fn {name}() -> Environment {{\n        Environment {{\n            user: {user},\n            hotels: {hotels},\n            \
         restaurants: {restaurants},\n            car_rental: {companies},\n            flights: {flights},\n            \
         reservation: {reservation},\n            inbox: {},\n            calendar: {},\n        }}\n    }}\n",
        inbox(field(env, "inbox")?)?,
        calendar(field(env, "calendar")?)?,
    ))
}

/// `fn {name}() -> Environment { .. }` for the workspace suite's parsed environment (its includes resolved).
fn workspace_environment(name: &str, env: &Value) -> Result<String, DojoError> {
    let drive = field(env, "cloud_drive")?;
    let mut files = Vec::new();
    for f in seq(field(drive, "initial_files")?) {
        let base = record(
            "super::CloudDriveFile",
            f,
            &[
                ("id_", "id_", Field::Str),
                ("filename", "filename", Field::Str),
                ("content", "content", Field::Str),
                ("owner", "owner", Field::Str),
                ("last_modified", "last_modified", Field::Time),
            ],
        )?;
        let mut shared = Vec::new();
        for (email, permission) in map(f.get("shared_with").unwrap_or(&Value::Null)) {
            let permission = match text(permission).as_str() {
                "r" => "super::SharingPermission::R",
                "rw" => "super::SharingPermission::Rw",
                other => return Err(DojoError::Data(format!("environment.yaml: a sharing permission `{other}`"))),
            };
            shared.push(format!("({}, {permission})", owned(&email)));
        }
        // Python's `len` counts characters.
        let size = text(field(f, "content")?).chars().count();
        files.push(format!(
            "{}, shared_with: vec![{}], size: {size} }}",
            base.trim_end_matches(" }"),
            shared.join(", ")
        ));
    }
    Ok(format!(
        "fn {name}() -> Environment {{\n        Environment {{\n            inbox: {},\n            calendar: {},\n            \
         cloud_drive: CloudDrive {{ account_email: {}, files: vec![{}] }},\n        }}\n    }}\n",
        inbox(field(env, "inbox")?)?,
        calendar(field(env, "calendar")?)?,
        owned(&text(field(drive, "account_email")?)),
        files.join(",\n            "),
    ))
}

/// The environment constructor `name` from the filled environment.
pub fn environment(suite: SuiteName, name: &str, env: &Value) -> Result<String, DojoError> {
    match suite {
        SuiteName::Banking => banking_environment(name, env),
        SuiteName::Slack => slack_environment(name, env),
        SuiteName::Travel => travel_environment(name, env),
        SuiteName::Workspace => workspace_environment(name, env),
    }
}
