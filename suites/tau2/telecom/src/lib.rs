//! τ²-bench's telecom domain as a Lacuna host. It is τ²'s one dual-control domain: two parties act on the world.
//!
//! - [`Telecom`], the carrier's systems: customers, lines, plans, bills and devices, read from τ²'s `db.toml`.
//!   Its methods are the agent's tools (look customers and bills up, suspend and resume lines, roaming, data
//!   refuelling, payment requests), ported from τ²'s telecom toolkit with its checks, results and error texts.
//! - [`Phone`], the customer's phone and surroundings, read from τ²'s `user_db.toml`. Its methods are the user's
//!   tools (status bar, airplane mode, mobile data, roaming, APN, SIM, network mode, Wi-Fi calling, VPN, app
//!   permissions, speed test, paying a bill), ported from τ²'s telecom user toolkit: a small simulation of a phone.
//! - [`Telecom::sync`] carries the carrier's state over to the phone as τ²'s environment does (a line that is
//!   active, roaming allowed, data left, a bill awaiting payment) and a paid bill back.
//!
//! In a benchmark session both are locals (`telecom`, `phone`); the agent's turns are denied `phone`, so the agent
//! reaches the phone only by asking the customer, as in τ².
//!
//! Both sides also have τ²'s scene-setting functions (what a task's initialization runs: break the APN, unseat
//! the SIM, use up data, an overdue bill) and its assertion functions (what a task's reward checks).
//!
//! τ²'s quirks kept: the date is 2025-02-25; a refuelled line's charge goes on a draft bill, created when there is
//! none (τ² draws its id at random, `B` and 8 hex digits; the port numbers them: B00000001, B00000002, ...);
//! breaking the VPN also degrades the phone's default VPN profile, which a later connection uses.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

// Telecom has no `calculate` and no store comparison: it uses these files' rounding, `repr` and error type.
#[allow(dead_code)]
#[path = "../../python.rs"]
mod python;
#[allow(dead_code)]
#[path = "../../support.rs"]
mod support;

mod agent;
mod date;
mod handset;

pub use agent::Telecom;
pub use handset::Phone;
pub use support::ToolError;

// ---- The carrier's records ----

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Address {
    pub street: String,
    pub city: String,
    pub state: String,
    pub zip_code: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Plan {
    pub plan_id: String,
    pub name: String,
    pub data_limit_gb: f64,
    pub price_per_month: f64,
    pub data_refueling_price_per_gb: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceType {
    Phone,
    Router,
    Tablet,
    Watch,
    Other,
}

/// Dates are "YYYY-MM-DD", times "YYYY-MM-DDTHH:MM:SS", as τ² writes them.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Device {
    pub device_id: String,
    pub device_type: DeviceType,
    pub model: String,
    #[serde(default)]
    pub imei: Option<String>,
    pub is_esim_capable: bool,
    #[serde(default)]
    pub activated: bool,
    #[serde(default)]
    pub activation_date: Option<String>,
    #[serde(default)]
    pub last_esim_transfer_date: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
pub enum LineStatus {
    Active,
    Suspended,
    #[default]
    #[serde(rename = "Pending Activation")]
    PendingActivation,
    Closed,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Line {
    pub line_id: String,
    pub phone_number: String,
    #[serde(default)]
    pub status: LineStatus,
    pub plan_id: String,
    #[serde(default)]
    pub device_id: Option<String>,
    #[serde(default)]
    pub data_used_gb: f64,
    #[serde(default)]
    pub data_refueling_gb: f64,
    #[serde(default)]
    pub roaming_enabled: bool,
    #[serde(default)]
    pub contract_end_date: Option<String>,
    #[serde(default)]
    pub last_plan_change_date: Option<String>,
    #[serde(default)]
    pub last_sim_replacement_date: Option<String>,
    #[serde(default)]
    pub suspension_start_date: Option<String>,
}

/// A charge, credit or payment on a bill.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct LineItem {
    pub description: String,
    pub amount: f64,
    pub date: String,
    /// "Plan Charge", "Overage", "Fee", "Credit", "Payment", "Charge", ...
    pub item_type: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
pub enum BillStatus {
    #[default]
    Draft,
    Issued,
    #[serde(rename = "Awaiting Payment")]
    AwaitingPayment,
    Paid,
    Overdue,
    Disputed,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Bill {
    pub bill_id: String,
    pub customer_id: String,
    pub period_start: String,
    pub period_end: String,
    pub issue_date: String,
    pub total_due: f64,
    pub due_date: String,
    #[serde(default)]
    pub line_items: Vec<LineItem>,
    #[serde(default)]
    pub status: BillStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
pub enum AccountStatus {
    Active,
    Suspended,
    #[default]
    #[serde(rename = "Pending Verification")]
    PendingVerification,
    Closed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum PaymentMethodType {
    #[serde(rename = "Credit Card")]
    CreditCard,
    #[serde(rename = "Debit Card")]
    DebitCard,
    PayPal,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct PaymentMethod {
    pub method_type: PaymentMethodType,
    pub account_number_last_4: String,
    /// "MM/YYYY".
    pub expiration_date: String,
}

fn default_created_at() -> String {
    "2025-01-01T00:00:00".to_string()
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Customer {
    pub customer_id: String,
    pub full_name: String,
    /// "YYYY-MM-DD".
    pub date_of_birth: String,
    pub email: String,
    pub phone_number: String,
    pub address: Address,
    #[serde(default)]
    pub account_status: AccountStatus,
    #[serde(default)]
    pub payment_methods: Vec<PaymentMethod>,
    #[serde(default)]
    pub line_ids: Vec<String>,
    #[serde(default)]
    pub bill_ids: Vec<String>,
    #[serde(default = "default_created_at")]
    pub created_at: String,
    #[serde(default)]
    pub last_extension_date: Option<String>,
    #[serde(default)]
    pub goodwill_credit_used_this_year: f64,
}

/// What `get_details_by_id` finds: the record an id names (by its first letter).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Details {
    Line(Line),
    Device(Device),
    Bill(Bill),
    Customer(Customer),
    Plan(Plan),
}

/// A line's status after `suspend_line` or `resume_line`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineChange {
    pub message: String,
    pub line: Line,
}

/// A line's data this billing cycle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DataUsage {
    pub line_id: String,
    pub data_used_gb: f64,
    pub data_limit_gb: f64,
    pub data_refueling_gb: f64,
    pub cycle_end_date: String,
}

/// What `refuel_data` did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refuel {
    pub message: String,
    pub new_data_refueling_gb: f64,
    pub charge: f64,
}

// ---- The customer's phone ----

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SimStatus {
    Active,
    Missing,
    LockedPin,
    LockedPuk,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
pub enum NetworkTechnology {
    #[serde(rename = "none")]
    None,
    #[serde(rename = "2G")]
    TwoG,
    #[serde(rename = "3G")]
    ThreeG,
    #[serde(rename = "4G")]
    FourG,
    #[serde(rename = "5G")]
    FiveG,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum NetworkModePreference {
    #[serde(rename = "4g_5g_preferred")]
    FourG5GPreferred,
    #[serde(rename = "4g_only")]
    FourGOnly,
    #[serde(rename = "3g_only")]
    ThreeGOnly,
    #[serde(rename = "2g_only")]
    TwoGOnly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SignalStrength {
    None,
    Poor,
    Fair,
    Good,
    Excellent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PerformanceLevel {
    #[default]
    Unknown,
    Poor,
    Fair,
    Good,
    Excellent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkStatus {
    Connected,
    Searching,
    NoService,
    EmergencyOnly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ApnName {
    #[default]
    Internet,
    Broken,
}

fn some_mms() -> Option<String> {
    Some("mms".to_string())
}

fn some_mmsc_url() -> Option<String> {
    Some("http://mms.carrier.com/mms/wapenc".to_string())
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ApnSettings {
    #[serde(default)]
    pub apn_name: ApnName,
    #[serde(default)]
    pub reset_at_reboot: bool,
    #[serde(default = "some_mms")]
    pub mms_apn: Option<String>,
    #[serde(default = "some_mmsc_url")]
    pub mmsc_url: Option<String>,
    #[serde(default)]
    pub mms_proxy: Option<String>,
    #[serde(default)]
    pub mms_port: Option<i64>,
}

impl Default for ApnSettings {
    fn default() -> ApnSettings {
        ApnSettings {
            apn_name: ApnName::Internet,
            reset_at_reboot: false,
            mms_apn: some_mms(),
            mmsc_url: some_mmsc_url(),
            mms_proxy: None,
            mms_port: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
pub struct VpnDetails {
    #[serde(default)]
    pub server_address: Option<String>,
    #[serde(default)]
    pub protocol: Option<String>,
    #[serde(default)]
    pub server_performance: PerformanceLevel,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
pub struct AppPermissions {
    #[serde(default)]
    pub sms: bool,
    #[serde(default)]
    pub storage: bool,
    #[serde(default)]
    pub phone: bool,
    #[serde(default)]
    pub network: bool,
}

impl AppPermissions {
    /// The permissions by name, in τ²'s order.
    fn named(&self) -> [(&'static str, bool); 4] {
        [("sms", self.sms), ("storage", self.storage), ("phone", self.phone), ("network", self.network)]
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut bool> {
        match name {
            "sms" => Some(&mut self.sms),
            "storage" => Some(&mut self.storage),
            "phone" => Some(&mut self.phone),
            "network" => Some(&mut self.network),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct AppStatus {
    pub app_name: String,
    #[serde(default)]
    pub permissions: AppPermissions,
}

/// The phone's state (τ²'s `MockPhoneAttributes`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct PhoneState {
    pub sim_card_status: SimStatus,
    pub sim_card_missing: bool,
    pub airplane_mode: bool,
    pub network_signal_strength: SignalStrength,
    pub network_technology_connected: NetworkTechnology,
    pub network_connection_status: NetworkStatus,
    pub battery_level: i64,
    pub data_enabled: bool,
    pub roaming_enabled: bool,
    pub network_mode_preference: NetworkModePreference,
    #[serde(default)]
    pub active_apn_settings: ApnSettings,
    pub wifi_enabled: bool,
    pub wifi_connected: bool,
    #[serde(default)]
    pub wifi_ssid: Option<String>,
    pub wifi_signal_strength: SignalStrength,
    pub wifi_calling_enabled: bool,
    pub wifi_calling_mms_over_wifi: bool,
    pub data_saver_mode: bool,
    pub vpn_enabled_setting: bool,
    pub vpn_connected: bool,
    #[serde(default)]
    pub vpn_details: Option<VpnDetails>,
    /// By app name, in the data's order ("messaging", "browser").
    #[serde(with = "in_order")]
    pub app_statuses: Vec<(String, AppStatus)>,
}

impl PhoneState {
    fn app(&self, name: &str) -> Option<&AppStatus> {
        self.app_statuses.iter().find(|(n, _)| n == name).map(|(_, app)| app)
    }

    fn app_mut(&mut self, name: &str) -> Option<&mut AppStatus> {
        self.app_statuses.iter_mut().find(|(n, _)| n == name).map(|(_, app)| app)
    }
}

/// A map kept in its document's order (Python's dicts keep insertion order, and τ² lists apps in it).
mod in_order {
    use std::fmt;
    use std::marker::PhantomData;

    use serde::de::{MapAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn deserialize<'de, D: Deserializer<'de>, V: Deserialize<'de>>(d: D) -> Result<Vec<(String, V)>, D::Error> {
        struct Entries<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for Entries<V> {
            type Value = Vec<(String, V)>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(out)
            }
        }
        d.deserialize_map(Entries(PhantomData))
    }

    pub fn serialize<S: Serializer, V: Serialize>(entries: &[(String, V)], s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(entries.iter().map(|(k, v)| (k, v)))
    }
}

/// A bill the carrier asked the customer to pay.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct PaymentRequest {
    pub bill_id: String,
    pub amount_due: f64,
    #[serde(default)]
    pub paid: bool,
}

fn default_signal() -> BTreeMap<NetworkTechnology, SignalStrength> {
    BTreeMap::from([
        (NetworkTechnology::TwoG, SignalStrength::Poor),
        (NetworkTechnology::ThreeG, SignalStrength::Fair),
        (NetworkTechnology::FourG, SignalStrength::Good),
        (NetworkTechnology::FiveG, SignalStrength::Excellent),
    ])
}

fn yes() -> bool {
    true
}

/// Where the customer is and what the carrier allows them.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Surroundings {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub phone_number: Option<String>,
    #[serde(default)]
    pub is_abroad: bool,
    #[serde(default)]
    pub roaming_allowed: bool,
    #[serde(default = "default_signal")]
    pub signal_strength: BTreeMap<NetworkTechnology, SignalStrength>,
    #[serde(default)]
    pub mobile_data_usage_exceeded: bool,
    #[serde(default = "yes")]
    pub line_active: bool,
    #[serde(default)]
    pub payment_request: Option<PaymentRequest>,
}

impl Default for Surroundings {
    fn default() -> Surroundings {
        Surroundings {
            name: None,
            phone_number: None,
            is_abroad: false,
            roaming_allowed: false,
            signal_strength: default_signal(),
            mobile_data_usage_exceeded: false,
            line_active: true,
            payment_request: None,
        }
    }
}
