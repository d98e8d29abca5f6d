//! `Phone`: the customer's phone and surroundings, and the user's tools on it (τ²'s telecom user toolkit, a small
//! simulation of a phone: every setting that touches the radio searches the network again).

use serde::Deserialize;

use super::python::round2;
use super::support::Trace;
use super::{
    ApnName, ApnSettings, NetworkModePreference, NetworkStatus, NetworkTechnology, PerformanceLevel, PhoneState,
    SignalStrength, SimStatus, Surroundings, ToolError, VpnDetails,
};

/// The customer's side of a telecom task.
#[derive(Debug, Clone)]
pub struct Phone {
    pub(crate) device: PhoneState,
    pub(crate) surroundings: Surroundings,
    /// The profile `connect_vpn` uses. τ² hands a connecting VPN this very object, so breaking the VPN then
    /// degrades the profile too (`vpn_is_default`: the connected VPN's details are it).
    default_vpn: VpnDetails,
    vpn_is_default: bool,
    /// The tools called, in order.
    trace: Trace,
}

fn default_vpn() -> VpnDetails {
    VpnDetails {
        server_address: Some("192.168.1.1".to_string()),
        protocol: Some("OpenVPN".to_string()),
        server_performance: PerformanceLevel::Excellent,
    }
}

fn on_off(on: bool) -> &'static str {
    if on {
        "ON"
    } else {
        "OFF"
    }
}

fn yes_no(yes: bool) -> &'static str {
    if yes {
        "Yes"
    } else {
        "No"
    }
}

/// An enum's value as τ² prints it (`.value`).
fn value<T: serde::Serialize>(v: T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

impl Phone {
    /// Reads τ²'s telecom `user_db.toml`.
    pub fn load(path: &str) -> Result<Phone, String> {
        #[derive(Deserialize)]
        struct Db {
            device: PhoneState,
            #[serde(default)]
            surroundings: Surroundings,
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let db: Db = toml::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        Ok(Phone {
            device: db.device,
            surroundings: db.surroundings,
            default_vpn: default_vpn(),
            vpn_is_default: false,
            trace: Trace::default(),
        })
    }

    /// The phone as τ² dumps it: `{"device": {..}, "surroundings": {..}}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"device": self.device, "surroundings": self.surroundings})
    }

    /// The user's tool calls, in order.
    pub(crate) fn trace(&self) -> &[serde_json::Value] {
        &self.trace.0
    }

    /// How many of the user's tools were called.
    pub fn tool_calls(&self) -> usize {
        self.trace.len()
    }

    // ---- Status ----

    fn status_bar(&self) -> String {
        let d = &self.device;
        let mut parts: Vec<String> = Vec::new();
        if d.airplane_mode {
            parts.push("✈️ Airplane Mode".to_string());
        } else {
            parts.push(
                match d.network_signal_strength {
                    SignalStrength::None => "📵 No Signal",
                    SignalStrength::Poor => "📶¹ Poor",
                    SignalStrength::Fair => "📶² Fair",
                    SignalStrength::Good => "📶³ Good",
                    SignalStrength::Excellent => "📶⁴ Excellent",
                }
                .to_string(),
            );
            if d.network_technology_connected != NetworkTechnology::None {
                parts.push(value(d.network_technology_connected));
            }
            if d.data_enabled && d.network_technology_connected != NetworkTechnology::None {
                parts.push("📱 Data Enabled".to_string());
                if d.data_saver_mode {
                    parts.push("🔽 Data Saver".to_string());
                }
            } else {
                parts.push("📵 Data Disabled".to_string());
            }
        }
        if d.wifi_enabled && d.wifi_connected {
            match &d.wifi_ssid {
                Some(ssid) if !ssid.is_empty() => parts.push(format!("📡 Connected to {ssid}")),
                _ => parts.push("📡 Enabled".to_string()),
            }
        }
        if d.vpn_connected {
            parts.push("🔒 VPN Connected".to_string());
        }
        parts.push(format!("🔋 {}%", d.battery_level));
        parts.join(" | ")
    }

    /// `update` followed by the status bar, as the setting tools answer.
    fn with_status_bar(&self, update: &str) -> String {
        format!("{update}\nStatus Bar: {}", self.status_bar())
    }

    fn sim_status(&self) -> SimStatus {
        if self.device.sim_card_missing {
            SimStatus::Missing
        } else {
            self.device.sim_card_status
        }
    }

    fn mobile_data_working(&self) -> bool {
        let d = &self.device;
        if d.airplane_mode || d.network_signal_strength == SignalStrength::None {
            return false;
        }
        if d.network_connection_status == NetworkStatus::NoService {
            return false;
        }
        if self.surroundings.is_abroad && (!d.roaming_enabled || !self.surroundings.roaming_allowed) {
            return false;
        }
        d.data_enabled && !self.surroundings.mobile_data_usage_exceeded
    }

    /// The speed test's Mbps and its description, or why there is none.
    fn speed(&self) -> (Option<f64>, &'static str) {
        if !self.mobile_data_working() {
            return (None, "No Connection");
        }
        let d = &self.device;
        let poor_vpn =
            d.vpn_connected && d.vpn_details.as_ref().is_some_and(|v| v.server_performance == PerformanceLevel::Poor);
        let mut factor = if poor_vpn { 0.1 } else { 1.0 };
        if d.data_saver_mode {
            factor *= 0.2;
        }
        let (min, max) = match d.network_technology_connected {
            NetworkTechnology::TwoG => (0.1, 0.4),
            NetworkTechnology::ThreeG => (1.0, 5.0),
            NetworkTechnology::FourG => (10.0, 100.0),
            NetworkTechnology::FiveG => (50.0, 500.0),
            NetworkTechnology::None => (0.0, 0.0),
        };
        let signal = match d.network_signal_strength {
            SignalStrength::Poor => 0.2,
            SignalStrength::Fair => 0.5,
            SignalStrength::Good => 0.8,
            SignalStrength::Excellent => 1.0,
            SignalStrength::None => 0.0,
        };
        let speed = round2((min + max) / 2.0 * signal * factor);
        let description = if speed < 1.0 {
            "Very Poor"
        } else if speed < 5.0 {
            "Poor"
        } else if speed < 25.0 {
            "Fair"
        } else if speed < 100.0 {
            "Good"
        } else {
            "Excellent"
        };
        (Some(speed), description)
    }

    fn can_mms(&self) -> bool {
        let d = &self.device;
        if !self.mobile_data_working() || d.network_technology_connected == NetworkTechnology::TwoG {
            return false;
        }
        if d.wifi_calling_enabled && d.wifi_calling_mms_over_wifi {
            return false;
        }
        if d.active_apn_settings.mmsc_url.is_none() {
            return false;
        }
        self.device.app("messaging").is_some_and(|app| app.permissions.storage && app.permissions.sms)
    }

    /// The phone looks for a network again, after a setting that touches the radio changed.
    pub fn simulate_network_search(&mut self) {
        let signal_of =
            |s: &Surroundings, t: NetworkTechnology| s.signal_strength.get(&t).copied().unwrap_or(SignalStrength::None);
        let d = &mut self.device;
        let no_service = |d: &mut PhoneState| {
            d.network_connection_status = NetworkStatus::NoService;
            d.network_technology_connected = NetworkTechnology::None;
            d.network_signal_strength = SignalStrength::None;
        };
        let sim = if d.sim_card_missing { SimStatus::Missing } else { d.sim_card_status };
        if sim == SimStatus::Active {
            d.network_connection_status = NetworkStatus::Connected;
            let technology = match d.network_mode_preference {
                NetworkModePreference::FourG5GPreferred => {
                    if signal_of(&self.surroundings, NetworkTechnology::FiveG) == SignalStrength::None {
                        NetworkTechnology::FourG
                    } else {
                        NetworkTechnology::FiveG
                    }
                }
                NetworkModePreference::FourGOnly => NetworkTechnology::FourG,
                NetworkModePreference::ThreeGOnly => NetworkTechnology::ThreeG,
                NetworkModePreference::TwoGOnly => NetworkTechnology::TwoG,
            };
            d.network_technology_connected = technology;
            d.network_signal_strength = signal_of(&self.surroundings, technology);
        } else {
            no_service(d);
        }
        if d.airplane_mode || d.active_apn_settings.apn_name == ApnName::Broken || !self.surroundings.line_active {
            no_service(d);
        }
    }

    // ---- The user's tools ----

    pub fn check_status_bar(&mut self) -> String {
        self.trace.record("check_status_bar", serde_json::json!({}));
        format!("Status Bar: {}", self.status_bar())
    }

    pub fn check_network_status(&mut self) -> String {
        self.trace.record("check_network_status", serde_json::json!({}));
        let d = &self.device;
        let mut lines = vec![
            format!("Airplane Mode: {}", on_off(d.airplane_mode)),
            format!("SIM Card Status: {}", value(self.sim_status())),
            format!("Cellular Connection: {}", value(d.network_connection_status)),
            format!("Cellular Signal: {}", value(d.network_signal_strength)),
            format!("Cellular Network Type: {}", value(d.network_technology_connected)),
            format!("Mobile Data Enabled: {}", yes_no(d.data_enabled)),
            format!("Data Roaming Enabled: {}", yes_no(d.roaming_enabled)),
            format!("Wi-Fi Radio: {}", on_off(d.wifi_enabled)),
            format!("Wi-Fi Connected: {}", yes_no(d.wifi_connected)),
        ];
        if d.wifi_connected {
            lines.push(format!("Connected Wi-Fi Network: {}", d.wifi_ssid.as_deref().unwrap_or("None")));
        }
        lines.join("\n")
    }

    pub fn check_network_mode_preference(&mut self) -> String {
        self.trace.record("check_network_mode_preference", serde_json::json!({}));
        format!("Network Mode Preference: {}", value(self.device.network_mode_preference))
    }

    /// `mode`: "4g_5g_preferred", "4g_only", "3g_only" or "2g_only".
    pub fn set_network_mode_preference(&mut self, mode: &str) -> String {
        self.trace.record("set_network_mode_preference", serde_json::json!({"mode": mode}));
        match serde_json::from_value::<NetworkModePreference>(serde_json::Value::from(mode)) {
            Ok(preference) => {
                self.device.network_mode_preference = preference;
                self.simulate_network_search();
                self.with_status_bar(&format!("Preferred Network Mode set to: {mode}"))
            }
            Err(_) => self.with_status_bar(&format!(
                "Failed to set network mode: '{mode}' is not a valid option. Please use one of: 4g_5g_preferred, \
                 4g_only, 3g_only, 2g_only"
            )),
        }
    }

    pub fn run_speed_test(&mut self) -> String {
        self.trace.record("run_speed_test", serde_json::json!({}));
        let (speed, description) = self.speed();
        let Some(speed) = speed else { return format!("Speed test failed: {description}.") };
        let advice = match description {
            "Very Poor" => "Connection is very slow. Basic web browsing might be difficult.",
            "Poor" => "Connection is slow. Web browsing may be sluggish, streaming difficult.",
            "Fair" => "Connection is okay for web browsing and some standard definition streaming.",
            "Good" => "Connection is good for most activities, including HD streaming.",
            _ => "Connection is very fast.",
        };
        format!("Speed Test Result: {speed:.2} Mbps ({description}). {advice}")
    }

    fn toggle_airplane(&mut self) -> bool {
        let was_on = self.device.airplane_mode;
        self.device.airplane_mode = !was_on;
        let d = &mut self.device;
        if was_on {
            d.network_connection_status = NetworkStatus::Searching;
            if d.wifi_enabled {
                d.wifi_connected = false;
                d.wifi_ssid = None;
                d.wifi_signal_strength = SignalStrength::None;
            }
        } else {
            d.wifi_connected = false;
            d.wifi_ssid = None;
            d.wifi_signal_strength = SignalStrength::None;
            self.disconnect();
        }
        self.simulate_network_search();
        self.device.airplane_mode
    }

    pub fn toggle_airplane_mode(&mut self) -> String {
        self.trace.record("toggle_airplane_mode", serde_json::json!({}));
        let on = self.toggle_airplane();
        self.with_status_bar(&format!("Airplane Mode is now {}.", on_off(on)))
    }

    pub fn check_sim_status(&mut self) -> String {
        self.trace.record("check_sim_status", serde_json::json!({}));
        match self.sim_status() {
            SimStatus::Active => "Your SIM card is active and working.",
            SimStatus::Missing => "No SIM card detected in the phone.",
            SimStatus::LockedPin => "The SIM card is locked with a PIN code.",
            SimStatus::LockedPuk => "The SIM card is locked with a PUK code.",
        }
        .to_string()
    }

    pub fn reseat_sim_card(&mut self) -> String {
        self.trace.record("reseat_sim_card", serde_json::json!({}));
        self.device.sim_card_missing = false;
        self.simulate_network_search();
        self.with_status_bar("SIM card re-seated successfully.")
    }

    fn toggle_data_enabled(&mut self) -> bool {
        self.device.data_enabled = !self.device.data_enabled;
        self.simulate_network_search();
        self.device.data_enabled
    }

    pub fn toggle_data(&mut self) -> String {
        self.trace.record("toggle_data", serde_json::json!({}));
        let on = self.toggle_data_enabled();
        self.with_status_bar(&format!("Mobile Data is now {}.", on_off(on)))
    }

    fn toggle_roaming_enabled(&mut self) -> bool {
        self.device.roaming_enabled = !self.device.roaming_enabled;
        self.simulate_network_search();
        self.device.roaming_enabled
    }

    pub fn toggle_roaming(&mut self) -> String {
        self.trace.record("toggle_roaming", serde_json::json!({}));
        let on = self.toggle_roaming_enabled();
        self.with_status_bar(&format!("Data Roaming is now {}.", on_off(on)))
    }

    pub fn check_data_restriction_status(&mut self) -> String {
        self.trace.record("check_data_restriction_status", serde_json::json!({}));
        if self.device.data_saver_mode {
            "Data Saver mode is ON (limits data usage)."
        } else {
            "Data Saver mode is OFF."
        }
        .to_string()
    }

    pub fn toggle_data_saver_mode(&mut self) -> String {
        self.trace.record("toggle_data_saver_mode", serde_json::json!({}));
        self.device.data_saver_mode = !self.device.data_saver_mode;
        self.with_status_bar(&format!("Data Saver Mode is now {}.", on_off(self.device.data_saver_mode)))
    }

    pub fn check_apn_settings(&mut self) -> String {
        self.trace.record("check_apn_settings", serde_json::json!({}));
        let apn = &self.device.active_apn_settings;
        format!(
            "Current APN Name: {}\nMMSC URL (for picture messages): {}\n(These are technical settings, usually best left \
             unchanged.)",
            value(apn.apn_name),
            apn.mmsc_url.as_deref().filter(|u| !u.is_empty()).unwrap_or("Not Set")
        )
    }

    pub fn set_apn_settings(&mut self, apn_settings: ApnSettings) -> String {
        self.trace.record("set_apn_settings", serde_json::json!({"apn_settings": apn_settings}));
        let name = value(apn_settings.apn_name);
        self.device.active_apn_settings = apn_settings;
        self.simulate_network_search();
        self.with_status_bar(&format!("APN settings set to: {name}"))
    }

    /// The APN settings go back to the carrier's at the next reboot.
    pub fn reset_apn_settings(&mut self) -> String {
        self.trace.record("reset_apn_settings", serde_json::json!({}));
        self.device.active_apn_settings.reset_at_reboot = true;
        self.simulate_network_search();
        self.with_status_bar("APN settings will reset at reboot.")
    }

    pub fn check_wifi_status(&mut self) -> String {
        self.trace.record("check_wifi_status", serde_json::json!({}));
        let d = &self.device;
        if !d.wifi_enabled {
            "Wi-Fi is turned OFF.".to_string()
        } else if d.wifi_connected {
            format!(
                "Wi-Fi is ON and connected to '{}'. Signal strength: {}.",
                d.wifi_ssid.as_deref().unwrap_or("None"),
                value(d.wifi_signal_strength)
            )
        } else {
            "Wi-Fi is ON but not connected to any network.".to_string()
        }
    }

    pub fn toggle_wifi(&mut self) -> String {
        self.trace.record("toggle_wifi", serde_json::json!({}));
        if self.device.airplane_mode {
            return self.with_status_bar("Cannot change Wi-Fi settings while Airplane Mode is ON.");
        }
        let d = &mut self.device;
        d.wifi_enabled = !d.wifi_enabled;
        if !d.wifi_enabled {
            d.wifi_connected = false;
            d.wifi_ssid = None;
            d.wifi_signal_strength = SignalStrength::None;
        }
        let on = d.wifi_enabled;
        self.with_status_bar(&format!("Wi-Fi is now {}.", on_off(on)))
    }

    pub fn check_wifi_calling_status(&mut self) -> String {
        self.trace.record("check_wifi_calling_status", serde_json::json!({}));
        format!("Wi-Fi Calling is currently turned {}.", on_off(self.device.wifi_calling_enabled))
    }

    pub fn toggle_wifi_calling(&mut self) -> String {
        self.trace.record("toggle_wifi_calling", serde_json::json!({}));
        self.device.wifi_calling_enabled = !self.device.wifi_calling_enabled;
        self.with_status_bar(&format!("Wi-Fi Calling is now {}.", on_off(self.device.wifi_calling_enabled)))
    }

    pub fn check_vpn_status(&mut self) -> String {
        self.trace.record("check_vpn_status", serde_json::json!({}));
        let d = &self.device;
        if d.vpn_connected {
            match &d.vpn_details {
                Some(details) => format!("VPN is ON and connected. Details: {}", python_dict(details)),
                None => "VPN is ON and connected (no specific details available).".to_string(),
            }
        } else if d.vpn_enabled_setting {
            "VPN is turned ON in settings, but currently not connected.".to_string()
        } else {
            "VPN is turned OFF.".to_string()
        }
    }

    fn connect(&mut self) -> bool {
        if self.device.vpn_connected {
            return false;
        }
        self.device.vpn_connected = true;
        self.device.vpn_details = Some(self.default_vpn.clone());
        self.vpn_is_default = true;
        true
    }

    pub fn connect_vpn(&mut self) -> String {
        self.trace.record("connect_vpn", serde_json::json!({}));
        if !self.connect() {
            return "VPN already connected.".to_string();
        }
        self.with_status_bar("VPN connected successfully.")
    }

    fn disconnect(&mut self) -> bool {
        if !self.device.vpn_connected {
            return false;
        }
        self.device.vpn_connected = false;
        self.device.vpn_details = None;
        self.vpn_is_default = false;
        true
    }

    pub fn disconnect_vpn(&mut self) -> String {
        self.trace.record("disconnect_vpn", serde_json::json!({}));
        let update = if self.disconnect() {
            "VPN disconnected successfully."
        } else {
            "No active VPN connection to disconnect."
        };
        self.with_status_bar(update)
    }

    pub fn check_installed_apps(&mut self) -> String {
        self.trace.record("check_installed_apps", serde_json::json!({}));
        let names: Vec<&str> = self.device.app_statuses.iter().map(|(name, _)| name.as_str()).collect();
        format!("The following apps are installed on the phone: {}", names.join(", "))
    }

    pub fn check_app_status(&mut self, app_name: &str) -> String {
        self.trace.record("check_app_status", serde_json::json!({"app_name": app_name}));
        let Some(app) = self.device.app(app_name) else { return format!("App '{app_name}' not found on this phone.") };
        let mut lines = vec![format!("Status for App: {app_name}")];
        let granted: Vec<&str> = app.permissions.named().into_iter().filter(|(_, on)| *on).map(|(n, _)| n).collect();
        if granted.is_empty() {
            lines.push(" - Permissions: None granted.".to_string());
        } else {
            lines.push(" - Permissions Granted:".to_string());
            lines.extend(granted.iter().map(|p| format!("   - {p}")));
        }
        lines.join("\n")
    }

    pub fn check_app_permissions(&mut self, app_name: &str) -> String {
        self.trace.record("check_app_permissions", serde_json::json!({"app_name": app_name}));
        let Some(app) = self.device.app(app_name) else { return format!("App '{app_name}' not found on this phone.") };
        let granted: Vec<&str> = app.permissions.named().into_iter().filter(|(_, on)| *on).map(|(n, _)| n).collect();
        if granted.is_empty() {
            format!("App '{app_name}' currently has no permissions granted.")
        } else {
            format!("App '{app_name}' has permission for: {}.", granted.join(", "))
        }
    }

    /// `permission`: "sms", "storage", "phone" or "network" (case ignored).
    pub fn grant_app_permission(&mut self, app_name: &str, permission: &str) -> String {
        self.trace.record("grant_app_permission", serde_json::json!({"app_name": app_name, "permission": permission}));
        let permission = permission.to_lowercase();
        let (ok, message) = match self.device.app_mut(app_name) {
            None => (false, format!("App '{app_name}' not found. Cannot grant permission.")),
            Some(app) => match app.permissions.get_mut(&permission) {
                None => (
                    false,
                    format!(
                        "Permission '{permission}' not tracked for app '{app_name}', available permissions: ['sms', \
                         'storage', 'phone', 'network']"
                    ),
                ),
                Some(granted) => {
                    *granted = true;
                    (true, format!("Permission '{permission}' granted to app '{app_name}'."))
                }
            },
        };
        self.with_status_bar(&format!("{}{message}", if ok { "Success. " } else { "Error. " }))
    }

    pub fn can_send_mms(&mut self) -> String {
        self.trace.record("can_send_mms", serde_json::json!({}));
        if self.can_mms() {
            "Your messaging app can send MMS messages."
        } else {
            "Your messaging app cannot send MMS messages."
        }
        .to_string()
    }

    pub fn reboot_device(&mut self) -> String {
        self.trace.record("reboot_device", serde_json::json!({}));
        let mut lines = Vec::new();
        if self.device.active_apn_settings.reset_at_reboot {
            lines.push("Resetting APN settings...");
            self.device.active_apn_settings = ApnSettings::default();
        }
        lines.push("Restarting network services...");
        self.device.network_connection_status = NetworkStatus::Searching;
        self.simulate_network_search();
        self.with_status_bar(&lines.join("\n"))
    }

    pub fn check_payment_request(&mut self) -> String {
        self.trace.record("check_payment_request", serde_json::json!({}));
        match &self.surroundings.payment_request {
            None => "No payment request has been made.".to_string(),
            Some(request) => format!(
                "You have a payment request for bill {} of {} USD.",
                request.bill_id,
                super::python::repr(request.amount_due)
            ),
        }
    }

    pub fn make_payment(&mut self) -> String {
        self.trace.record("make_payment", serde_json::json!({}));
        match &mut self.surroundings.payment_request {
            None => "You do not have a payment request.".to_string(),
            Some(request) => {
                request.paid = true;
                format!(
                    "Payment of {} USD has been made for bill {}.",
                    super::python::repr(request.amount_due),
                    request.bill_id
                )
            }
        }
    }

    // ---- Scene-setting (a task's initialization, not tools) ----

    pub fn set_user_info(&mut self, name: &str, phone_number: &str) {
        self.surroundings.name = Some(name.to_string());
        self.surroundings.phone_number = Some(phone_number.to_string());
    }

    pub fn set_user_location(&mut self, abroad: bool) {
        self.surroundings.is_abroad = abroad;
    }

    pub fn turn_airplane_mode_on(&mut self) -> String {
        if !self.toggle_airplane() {
            self.toggle_airplane();
        }
        "Airplane Mode is now ON.".to_string()
    }

    pub fn turn_airplane_mode_off(&mut self) -> String {
        if self.toggle_airplane() {
            self.toggle_airplane();
        }
        "Airplane Mode is now OFF.".to_string()
    }

    pub fn unseat_sim_card(&mut self) -> String {
        self.device.sim_card_missing = true;
        self.simulate_network_search();
        "SIM card un-seated successfully.".to_string()
    }

    /// `mode`: "pin" or "puk" (anything else changes nothing but the network search).
    pub fn lock_sim_card(&mut self, mode: &str) -> String {
        match mode {
            "pin" => self.device.sim_card_status = SimStatus::LockedPin,
            "puk" => self.device.sim_card_status = SimStatus::LockedPuk,
            _ => {}
        }
        self.simulate_network_search();
        format!("SIM card locked successfully in {mode} mode.")
    }

    pub fn turn_data_on(&mut self) -> String {
        self.device.data_enabled = true;
        "Data connection restored.".to_string()
    }

    pub fn turn_data_off(&mut self) -> String {
        if self.toggle_data_enabled() {
            self.toggle_data_enabled();
        }
        "Data connection broken.".to_string()
    }

    pub fn turn_roaming_on(&mut self) -> String {
        if !self.toggle_roaming_enabled() {
            self.toggle_roaming_enabled();
        }
        "Data Roaming is now ON.".to_string()
    }

    pub fn turn_roaming_off(&mut self) -> String {
        if self.toggle_roaming_enabled() {
            self.toggle_roaming_enabled();
        }
        "Data Roaming is now OFF.".to_string()
    }

    pub fn turn_data_saver_mode_on(&mut self) -> String {
        self.device.data_saver_mode = true;
        "Data Saver Mode is now ON.".to_string()
    }

    pub fn turn_data_saver_mode_off(&mut self) -> String {
        self.device.data_saver_mode = false;
        "Data Saver Mode is now OFF.".to_string()
    }

    pub fn break_apn_settings(&mut self) -> String {
        self.device.active_apn_settings.apn_name = ApnName::Broken;
        self.simulate_network_search();
        "APN settings broken. Please call reset_apn_settings() to fix.".to_string()
    }

    pub fn break_apn_mms_setting(&mut self) -> String {
        self.device.active_apn_settings.mmsc_url = None;
        "APN MMS setting broken. Please call reset_apn_settings() to fix.".to_string()
    }

    /// Connects the VPN (if it is not) and makes its server poor (the default profile too, when the VPN uses it).
    pub fn break_vpn(&mut self) -> Result<String, ToolError> {
        self.connect();
        let Some(details) = &mut self.device.vpn_details else {
            return Err(ToolError("'NoneType' object has no attribute 'server_performance'".to_string()));
        };
        details.server_performance = PerformanceLevel::Poor;
        if self.vpn_is_default {
            self.default_vpn.server_performance = PerformanceLevel::Poor;
        }
        Ok("VPN connection broken.".to_string())
    }

    pub fn set_wifi_calling(&mut self, enabled: bool, mms_over_wifi: Option<bool>) -> String {
        self.device.wifi_calling_enabled = enabled;
        let mut message = format!("Wi-Fi Calling is now {}.", on_off(enabled));
        if let Some(mms) = mms_over_wifi {
            self.device.wifi_calling_mms_over_wifi = mms;
            message.push_str(&format!("\nMMS over Wi-Fi is now {}.", on_off(mms)));
        }
        message
    }

    /// Takes a permission away from an app: whether it did, and what happened.
    pub fn remove_app_permission(&mut self, app_name: &str, permission: &str) -> (bool, String) {
        let permission = permission.to_lowercase();
        match self.device.app_mut(app_name) {
            None => (false, format!("App '{app_name}' not found. Cannot remove permission.")),
            Some(app) => match app.permissions.get_mut(&permission) {
                None => (false, format!("Permission '{permission}' not tracked for app '{app_name}'.")),
                Some(granted) => {
                    *granted = false;
                    (true, format!("Permission '{permission}' removed from app '{app_name}'."))
                }
            },
        }
    }

    // ---- A task's checks on the final state ----

    pub fn assert_airplane_mode_status(&self, expected_status: bool) -> bool {
        self.device.airplane_mode == expected_status
    }

    /// `expected_status`: "connected", "searching", "no_service" or "emergency_only".
    pub fn assert_service_status(&self, expected_status: &str) -> Result<bool, ToolError> {
        match serde_json::from_value::<NetworkStatus>(serde_json::Value::from(expected_status)) {
            Ok(status) => Ok(self.device.network_connection_status == status),
            Err(_) => Err(ToolError(format!("'{expected_status}' is not a valid NetworkStatus"))),
        }
    }

    pub fn assert_mobile_data_status(&self, expected_status: bool) -> bool {
        self.mobile_data_working() == expected_status
    }

    pub fn assert_mobile_roaming_status(&self, expected_status: bool) -> bool {
        self.device.roaming_enabled == expected_status
    }

    pub fn assert_mobile_data_saver_mode_status(&self, expected_status: bool) -> bool {
        self.device.data_saver_mode == expected_status
    }

    pub fn assert_internet_speed(&self, expected_speed: f64, expected_desc: Option<&str>) -> bool {
        let (speed, description) = self.speed();
        let speed = speed.unwrap_or(0.0);
        match expected_desc {
            None => speed >= expected_speed,
            Some(wanted) => speed >= expected_speed && description.to_lowercase() == wanted.to_lowercase(),
        }
    }

    pub fn assert_internet_not_excellent(&self) -> bool {
        self.speed().1.to_lowercase() != "excellent"
    }

    pub fn assert_can_send_mms(&self, expected_status: bool) -> bool {
        self.can_mms() == expected_status
    }

    pub fn assert_mobile_data_usage_exceeded(&self, expected_status: bool) -> bool {
        self.surroundings.mobile_data_usage_exceeded == expected_status
    }
}

/// A VPN profile as Python prints `model_dump()` of it: a dict, its enum member shown as `<Enum.NAME: 'value'>`.
fn python_dict(details: &VpnDetails) -> String {
    let text = |v: &Option<String>| v.as_ref().map_or("None".to_string(), |s| format!("'{s}'"));
    let performance = value(details.server_performance);
    format!(
        "{{'server_address': {}, 'protocol': {}, 'server_performance': <PerformanceLevel.{}: '{performance}'>}}",
        text(&details.server_address),
        text(&details.protocol),
        performance.to_uppercase()
    )
}
