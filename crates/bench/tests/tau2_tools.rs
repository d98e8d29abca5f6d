//! The τ² hosts' tools (`suites/tau2/{airline,retail}`) against τ²'s own Python tools, call for call: every
//! task's expected actions and the probes of `testdata/tau2/<domain>.probes.json`, as `scripts/tau2_reference.py`
//! ran them through τ²'s implementation into `testdata/tau2/<domain>.calls.jsonl`. Each call must give the same
//! result (as JSON, the way pydantic dumps τ²'s models) or the same error text, and each sequence must leave the
//! same records changed. Reads τ²'s databases from `shared/benchmarks` beside the repository, as the bench tests
//! do.

// Each host has the shared `support.rs` and `python.rs` as modules of its own, as in its crate.
#![allow(clippy::duplicate_mod)]

#[allow(dead_code)]
#[path = "../../../suites/tau2/airline/src/lib.rs"]
mod airline;
#[allow(dead_code)]
#[path = "../../../suites/tau2/retail/src/lib.rs"]
mod retail;
#[allow(dead_code)]
#[path = "../../../suites/tau2/telecom/src/lib.rs"]
mod telecom;

use airline::Airline;
use lacuna_bench::tau2::Action;
use retail::Retail;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use telecom::{Phone, Telecom};

fn arg<T: DeserializeOwned>(args: &Map<String, Value>, name: &str) -> T {
    let value = args.get(name).unwrap_or_else(|| panic!("no argument `{name}` in {args:?}"));
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("argument `{name}`: {e}"))
}

fn json<T: Serialize, E: std::fmt::Display>(result: Result<T, E>) -> Result<Value, String> {
    result.map(|v| serde_json::to_value(v).expect("host values serialize")).map_err(|e| e.to_string())
}

/// A store the test can call τ²'s tools on by name.
trait Tools: Clone {
    fn load(data: &str) -> Result<Self, String>;
    fn to_json(&self) -> Value;
    /// A call on `side` ("assistant", or "user" in telecom).
    fn call(&mut self, side: &str, name: &str, arguments: &Map<String, Value>) -> Result<Value, String>;
    /// What τ²'s environment does after every call (telecom's sync), and why it failed if it did.
    fn after_call(&mut self) -> Option<String> {
        None
    }
    /// The tool calls the store recorded (what the harness's `ACTION` basis reads), when the test checks them.
    fn trace(&self) -> Option<Vec<Value>> {
        None
    }
}

/// The trace in a store's verdict.
fn trace_of(verdict: &str) -> Option<Vec<Value>> {
    let verdict: Value = serde_json::from_str(verdict).expect("a JSON verdict");
    Some(verdict["trace"].as_array().expect("a trace").clone())
}

impl Tools for Airline {
    fn load(data: &str) -> Result<Self, String> {
        Airline::load(&format!("{data}/db.json"))
    }

    fn to_json(&self) -> Value {
        Airline::to_json(self)
    }

    fn call(&mut self, _side: &str, name: &str, arguments: &Map<String, Value>) -> Result<Value, String> {
        airline_call(self, name, arguments)
    }

    fn trace(&self) -> Option<Vec<Value>> {
        trace_of(&self.verdict(self, &[]))
    }
}

impl Tools for Retail {
    fn load(data: &str) -> Result<Self, String> {
        Retail::load(&format!("{data}/db.json"))
    }

    fn to_json(&self) -> Value {
        Retail::to_json(self)
    }

    fn call(&mut self, _side: &str, name: &str, arguments: &Map<String, Value>) -> Result<Value, String> {
        retail_call(self, name, arguments)
    }

    fn trace(&self) -> Option<Vec<Value>> {
        trace_of(&self.verdict(self, &[]))
    }
}

/// Telecom's two sides: the carrier's records and the customer's phone.
#[derive(Clone)]
struct TelecomWorld {
    telecom: Telecom,
    phone: Phone,
}

impl Tools for TelecomWorld {
    fn load(data: &str) -> Result<Self, String> {
        Ok(TelecomWorld {
            telecom: Telecom::load(&format!("{data}/db.toml"))?,
            phone: Phone::load(&format!("{data}/user_db.toml"))?,
        })
    }

    fn to_json(&self) -> Value {
        let mut both = self.telecom.to_json();
        let phone = self.phone.to_json();
        both.as_object_mut().unwrap().extend(phone.as_object().unwrap().clone());
        both
    }

    fn call(&mut self, side: &str, name: &str, arguments: &Map<String, Value>) -> Result<Value, String> {
        match side {
            "assistant" => carrier_call(&mut self.telecom, name, arguments),
            "user" => phone_call(&mut self.phone, name, arguments),
            other => panic!("no side `{other}`"),
        }
    }

    fn after_call(&mut self) -> Option<String> {
        self.telecom.sync(&mut self.phone).err().map(|e| e.0)
    }
}

fn ok<T: Serialize>(value: T) -> Result<Value, String> {
    json::<_, String>(Ok(value))
}

/// An argument τ² gives a default when it is left out.
fn opt<T: DeserializeOwned>(args: &Map<String, Value>, name: &str) -> Option<T> {
    args.get(name).filter(|v| !v.is_null()).map(|_| arg(args, name))
}

/// One call on the carrier's side: a tool, a scene-setting function or an assertion.
fn carrier_call(t: &mut Telecom, name: &str, a: &Map<String, Value>) -> Result<Value, String> {
    let s = |n: &str| arg::<String>(a, n);
    let (customer, line) = (|| s("customer_id"), || s("line_id"));
    match name {
        "get_customer_by_phone" => json(t.get_customer_by_phone(&s("phone_number"))),
        "get_customer_by_id" => json(t.get_customer_by_id(&s("customer_id"))),
        "get_customer_by_name" => ok(t.get_customer_by_name(&s("full_name"), &s("dob"))),
        "get_details_by_id" => json(t.get_details_by_id(&s("id"))),
        "suspend_line" => json(t.suspend_line(&customer(), &line(), &s("reason"))),
        "resume_line" => json(t.resume_line(&customer(), &line())),
        "get_bills_for_customer" => json(t.get_bills_for_customer(&customer(), opt(a, "limit"))),
        "send_payment_request" => json(t.send_payment_request(&customer(), &s("bill_id"))),
        "get_data_usage" => json(t.get_data_usage(&customer(), &line())),
        "enable_roaming" => json(t.enable_roaming(&customer(), &line())),
        "disable_roaming" => json(t.disable_roaming(&customer(), &line())),
        "transfer_to_human_agents" => ok(t.transfer_to_human_agents(&s("summary"))),
        "refuel_data" => json(t.refuel_data(&customer(), &line(), arg(a, "gb_amount"))),
        "set_data_usage" => json(t.set_data_usage(&customer(), &line(), arg(a, "data_used_gb"))),
        "suspend_line_for_overdue_bill" => {
            json(t.suspend_line_for_overdue_bill(&customer(), &line(), &s("new_bill_id"), arg(a, "contract_ended")))
        }
        "assert_data_refueling_amount" => {
            json(t.assert_data_refueling_amount(&customer(), &line(), arg(a, "expected_amount")))
        }
        "assert_line_status" => json(t.assert_line_status(&customer(), &line(), &s("expected_status"))),
        "assert_overdue_bill_exists" => json(t.assert_overdue_bill_exists(&customer(), &s("overdue_bill_id"))),
        "assert_no_overdue_bill" => ok(t.assert_no_overdue_bill(&s("overdue_bill_id"))),
        other => panic!("the carrier has no function `{other}`"),
    }
}

/// One call on the phone's side: a tool, a scene-setting function or an assertion.
fn phone_call(p: &mut Phone, name: &str, a: &Map<String, Value>) -> Result<Value, String> {
    let s = |n: &str| arg::<String>(a, n);
    let b = |n: &str| arg::<bool>(a, n);
    match name {
        "check_status_bar" => ok(p.check_status_bar()),
        "check_network_status" => ok(p.check_network_status()),
        "check_network_mode_preference" => ok(p.check_network_mode_preference()),
        "set_network_mode_preference" => ok(p.set_network_mode_preference(&s("mode"))),
        "run_speed_test" => ok(p.run_speed_test()),
        "toggle_airplane_mode" => ok(p.toggle_airplane_mode()),
        "check_sim_status" => ok(p.check_sim_status()),
        "reseat_sim_card" => ok(p.reseat_sim_card()),
        "toggle_data" => ok(p.toggle_data()),
        "toggle_roaming" => ok(p.toggle_roaming()),
        "check_data_restriction_status" => ok(p.check_data_restriction_status()),
        "toggle_data_saver_mode" => ok(p.toggle_data_saver_mode()),
        "check_apn_settings" => ok(p.check_apn_settings()),
        "set_apn_settings" => ok(p.set_apn_settings(arg(a, "apn_settings"))),
        "reset_apn_settings" => ok(p.reset_apn_settings()),
        "check_wifi_status" => ok(p.check_wifi_status()),
        "toggle_wifi" => ok(p.toggle_wifi()),
        "check_wifi_calling_status" => ok(p.check_wifi_calling_status()),
        "toggle_wifi_calling" => ok(p.toggle_wifi_calling()),
        "check_vpn_status" => ok(p.check_vpn_status()),
        "connect_vpn" => ok(p.connect_vpn()),
        "disconnect_vpn" => ok(p.disconnect_vpn()),
        "check_installed_apps" => ok(p.check_installed_apps()),
        "check_app_status" => ok(p.check_app_status(&s("app_name"))),
        "check_app_permissions" => ok(p.check_app_permissions(&s("app_name"))),
        "grant_app_permission" => ok(p.grant_app_permission(&s("app_name"), &s("permission"))),
        "can_send_mms" => ok(p.can_send_mms()),
        "reboot_device" => ok(p.reboot_device()),
        "check_payment_request" => ok(p.check_payment_request()),
        "make_payment" => ok(p.make_payment()),
        "set_user_info" => {
            p.set_user_info(&s("name"), &s("phone_number"));
            Ok(Value::Null)
        }
        "set_user_location" => {
            p.set_user_location(b("abroad"));
            Ok(Value::Null)
        }
        "simulate_network_search" => {
            p.simulate_network_search();
            Ok(Value::Null)
        }
        "turn_airplane_mode_on" => ok(p.turn_airplane_mode_on()),
        "turn_airplane_mode_off" => ok(p.turn_airplane_mode_off()),
        "unseat_sim_card" => ok(p.unseat_sim_card()),
        "lock_sim_card" => ok(p.lock_sim_card(&s("mode"))),
        "turn_data_on" => ok(p.turn_data_on()),
        "turn_data_off" => ok(p.turn_data_off()),
        "turn_roaming_on" => ok(p.turn_roaming_on()),
        "turn_roaming_off" => ok(p.turn_roaming_off()),
        "turn_data_saver_mode_on" => ok(p.turn_data_saver_mode_on()),
        "turn_data_saver_mode_off" => ok(p.turn_data_saver_mode_off()),
        "break_apn_settings" => ok(p.break_apn_settings()),
        "break_apn_mms_setting" => ok(p.break_apn_mms_setting()),
        "break_vpn" => json(p.break_vpn()),
        "set_wifi_calling" => ok(p.set_wifi_calling(b("enabled"), opt(a, "mms_over_wifi"))),
        "remove_app_permission" => ok(p.remove_app_permission(&s("app_name"), &s("permission"))),
        "assert_airplane_mode_status" => ok(p.assert_airplane_mode_status(b("expected_status"))),
        "assert_service_status" => json(p.assert_service_status(&s("expected_status"))),
        "assert_mobile_data_status" => ok(p.assert_mobile_data_status(b("expected_status"))),
        "assert_mobile_roaming_status" => ok(p.assert_mobile_roaming_status(b("expected_status"))),
        "assert_mobile_data_saver_mode_status" => ok(p.assert_mobile_data_saver_mode_status(b("expected_status"))),
        "assert_internet_speed" => {
            ok(p.assert_internet_speed(arg(a, "expected_speed"), opt::<String>(a, "expected_desc").as_deref()))
        }
        "assert_internet_not_excellent" => ok(p.assert_internet_not_excellent()),
        "assert_can_send_mms" => ok(p.assert_can_send_mms(b("expected_status"))),
        "assert_mobile_data_usage_exceeded" => ok(p.assert_mobile_data_usage_exceeded(b("expected_status"))),
        other => panic!("the phone has no function `{other}`"),
    }
}

/// Whether the domain's host has the tool (retail's retired `get_item_details` is called in tasks but not traced).
fn known(domain: &str, name: &str) -> bool {
    !(domain == "retail" && name == "get_item_details")
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// One τ² retail tool call on the host, as the harness would write it.
fn retail_call(store: &mut Retail, name: &str, a: &Map<String, Value>) -> Result<Value, String> {
    let s = |n: &str| arg::<String>(a, n);
    let list = |n: &str| arg::<Vec<String>>(a, n);

    let address = || [s("address1"), s("address2"), s("city"), s("state"), s("country"), s("zip")];
    match name {
        "calculate" => json(store.calculate(&s("expression"))),
        "cancel_pending_order" => json(store.cancel_pending_order(&s("order_id"), &s("reason"))),
        "exchange_delivered_order_items" => json(store.exchange_delivered_order_items(
            &s("order_id"),
            &refs(&list("item_ids")),
            &refs(&list("new_item_ids")),
            &s("payment_method_id"),
        )),
        "find_user_id_by_email" => json(store.find_user_id_by_email(&s("email"))),
        "find_user_id_by_name_zip" => {
            json(store.find_user_id_by_name_zip(&s("first_name"), &s("last_name"), &s("zip")))
        }
        "get_order_details" => json(store.get_order_details(&s("order_id"))),
        "get_product_details" => json(store.get_product_details(&s("product_id"))),
        "get_user_details" => json(store.get_user_details(&s("user_id"))),
        // τ² answers with `json.dumps(.., sort_keys=True)` of the map; the host with the map itself.
        "list_all_product_types" => json::<_, String>(Ok(store.list_all_product_types())),
        "modify_pending_order_address" => {
            let [a1, a2, city, state, country, zip] = address();
            json(store.modify_pending_order_address(&s("order_id"), &a1, &a2, &city, &state, &country, &zip))
        }
        "modify_pending_order_items" => json(store.modify_pending_order_items(
            &s("order_id"),
            &refs(&list("item_ids")),
            &refs(&list("new_item_ids")),
            &s("payment_method_id"),
        )),
        "modify_pending_order_payment" => {
            json(store.modify_pending_order_payment(&s("order_id"), &s("payment_method_id")))
        }
        "modify_user_address" => {
            let [a1, a2, city, state, country, zip] = address();
            json(store.modify_user_address(&s("user_id"), &a1, &a2, &city, &state, &country, &zip))
        }
        "return_delivered_order_items" => {
            json(store.return_delivered_order_items(&s("order_id"), &refs(&list("item_ids")), &s("payment_method_id")))
        }
        "transfer_to_human_agents" => json::<_, String>(Ok(store.transfer_to_human_agents(&s("summary")))),
        // A tool τ²'s retail toolkit does not have (some tasks' expected actions still name it): the call fails
        // as Python's attribute lookup does.
        other => Err(format!("'RetailTools' object has no attribute '{other}'")),
    }
}

/// One τ² airline tool call on the host, as the harness would write it.
fn airline_call(store: &mut Airline, name: &str, a: &Map<String, Value>) -> Result<Value, String> {
    let s = |n: &str| arg::<String>(a, n);
    match name {
        "book_reservation" => json(store.book_reservation(
            &s("user_id"),
            &s("origin"),
            &s("destination"),
            arg(a, "flight_type"),
            arg(a, "cabin"),
            &arg::<Vec<_>>(a, "flights"),
            &arg::<Vec<_>>(a, "passengers"),
            &arg::<Vec<_>>(a, "payment_methods"),
            arg(a, "total_baggages"),
            arg(a, "nonfree_baggages"),
            arg(a, "insurance"),
        )),
        "calculate" => json(store.calculate(&s("expression"))),
        "cancel_reservation" => json(store.cancel_reservation(&s("reservation_id"))),
        "get_flight_status" => json(store.get_flight_status(&s("flight_number"), &s("date"))),
        "get_reservation_details" => json(store.get_reservation_details(&s("reservation_id"))),
        "get_user_details" => json(store.get_user_details(&s("user_id"))),
        "list_all_airports" => json::<_, String>(Ok(store.list_all_airports())),
        "search_direct_flight" => {
            json::<_, String>(Ok(store.search_direct_flight(&s("origin"), &s("destination"), &s("date"))))
        }
        "search_onestop_flight" => json(store.search_onestop_flight(&s("origin"), &s("destination"), &s("date"))),
        "send_certificate" => json(store.send_certificate(&s("user_id"), arg(a, "amount"))),
        "transfer_to_human_agents" => json::<_, String>(Ok(store.transfer_to_human_agents(&s("summary")))),
        "update_reservation_baggages" => json(store.update_reservation_baggages(
            &s("reservation_id"),
            arg(a, "total_baggages"),
            arg(a, "nonfree_baggages"),
            &s("payment_id"),
        )),
        "update_reservation_flights" => json(store.update_reservation_flights(
            &s("reservation_id"),
            arg(a, "cabin"),
            &arg::<Vec<_>>(a, "flights"),
            &s("payment_id"),
        )),
        "update_reservation_passengers" => {
            json(store.update_reservation_passengers(&s("reservation_id"), &arg::<Vec<_>>(a, "passengers")))
        }
        other => panic!("the airline host has no tool `{other}`"),
    }
}

/// The records of each table that differ from `before`'s or are new, and the ids that are gone: the script's
/// `changed`.
fn changed(before: &Value, after: &Value) -> Value {
    let mut out = Map::new();
    let keyed = |records: &Value| -> Map<String, Value> {
        match records {
            Value::Array(items) => items.iter().enumerate().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            Value::Object(map) => map.clone(),
            other => panic!("a table is a list or an object, not {other}"),
        }
    };
    for (table, records) in after.as_object().expect("tables") {
        let old = &keyed(&before[table]);
        let records = &keyed(records);
        let diff: Map<String, Value> =
            records.iter().filter(|(id, r)| old.get(*id) != Some(*r)).map(|(k, v)| (k.clone(), v.clone())).collect();
        let gone: Vec<Value> =
            old.keys().filter(|id| !records.contains_key(*id)).map(|id| Value::from(id.clone())).collect();
        if !diff.is_empty() || !gone.is_empty() {
            out.insert(table.clone(), serde_json::json!({"changed": diff, "removed": gone}));
        }
    }
    Value::Object(out)
}

#[test]
fn airline_tools_agree_with_tau2s_call_for_call() {
    agree::<Airline>("airline");
}

#[test]
fn retail_tools_agree_with_tau2s_call_for_call() {
    agree::<Retail>("retail");
}

#[test]
fn telecom_tools_agree_with_tau2s_call_for_call() {
    agree::<TelecomWorld>("telecom");
}

fn agree<T: Tools>(domain: &str) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let data = format!("{root}/../shared/benchmarks/tau2/{domain}");
    let initial = T::load(&data).expect("τ²'s data in shared/benchmarks beside the repository");
    let before = initial.to_json();
    let expected = std::fs::read_to_string(format!("{root}/testdata/tau2/{domain}.calls.jsonl")).unwrap();
    let (mut sequences, mut calls, mut wrong) = (0, 0, Vec::new());
    for line in expected.lines() {
        let sequence: Value = serde_json::from_str(line).expect("a JSON line");
        let id = sequence["id"].as_str().expect("an id");
        let mut store = initial.clone();
        for (k, c) in sequence["calls"].as_array().expect("calls").iter().enumerate() {
            let name = c["name"].as_str().expect("a tool name");
            let side = c.get("side").and_then(Value::as_str).unwrap_or("assistant");
            let ours = store.call(side, name, c["arguments"].as_object().expect("arguments"));
            let theirs = match c.get("error") {
                Some(error) => Err(error.as_str().expect("an error text").to_owned()),
                // A map τ² answers as JSON text.
                None if domain == "retail" && name == "list_all_product_types" => {
                    Ok(serde_json::from_str(c["result"].as_str().expect("JSON text")).expect("JSON"))
                }
                None => Ok(c["result"].clone()),
            };
            if ours != theirs {
                wrong.push(format!("{id}, call {} `{name}`:\n  τ²:   {theirs:?}\n  ours: {ours:?}", k + 1));
            }
            let synced = store.after_call();
            let expected_sync = c.get("sync_error").and_then(Value::as_str).map(str::to_owned);
            if synced != expected_sync {
                wrong.push(format!("{id}, sync after call {}:\n  τ²:   {expected_sync:?}\n  ours: {synced:?}", k + 1));
            }
            calls += 1;
        }
        // Every call is in the store's trace as τ² names it, so `ACTION` finds each expected action the agent made.
        if let Some(trace) = store.trace() {
            let actions: Vec<Action> = serde_json::from_value(sequence["calls"].clone()).expect("calls");
            let calls: Vec<Action> = actions.into_iter().filter(|a| known(domain, &a.name)).collect();
            for action in lacuna_bench::tau2::missing_actions(&calls, &trace) {
                wrong.push(format!("{id}: the trace has no `{}` {:?}", action.name, action.arguments));
            }
            if trace.len() != calls.len() {
                wrong.push(format!("{id}: {} calls traced, {} made", trace.len(), calls.len()));
            }
        }
        let ours = changed(&before, &store.to_json());
        if ours != sequence["changed"] {
            wrong.push(format!("{id}: records left changed:\n  τ²:   {}\n  ours: {ours}", sequence["changed"]));
        }
        sequences += 1;
    }
    assert!(sequences > 50 && calls > 200, "only {sequences} sequences, {calls} calls read");
    assert!(
        wrong.is_empty(),
        "{} disagreements in {sequences} sequences, {calls} calls:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
