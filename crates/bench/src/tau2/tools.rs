//! The tools a domain's host has, with their parameters in the order the Rust methods take them.

/// How an argument is written in Rust.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `&str`
    Text,
    /// `&[&str]`
    TextList,
    /// `Option<&str>`: `None` when the call leaves it out.
    OptText,
    /// A whole number (`usize`, `i64`): an unsuffixed literal.
    Count,
    /// A whole number that may be negative (`i64`).
    Int,
    /// One of a host enum's variants, named by τ²'s string for it.
    Choice(&'static Choice),
    /// `&[Type::new(..), ..]`: a list of a host struct, each built from τ²'s object of its fields.
    Records(&'static Record),
    /// `bool`
    Bool,
    /// `Option<bool>`
    OptBool,
    /// `f64`: a float literal (`2.0` for τ²'s `2`).
    Float,
    /// `Option<i64>`
    OptInt,
}

/// A host enum and τ²'s strings for its variants.
#[derive(Debug, PartialEq, Eq)]
pub struct Choice {
    pub ty: &'static str,
    /// (τ²'s string, the variant).
    pub variants: &'static [(&'static str, &'static str)],
}

/// A host struct built with `Type::new(field, ..)`, in the order given.
#[derive(Debug, PartialEq, Eq)]
pub struct Record {
    pub ty: &'static str,
    pub fields: &'static [(&'static str, Kind)],
}

/// The retail host's tools (`suites/tau2/retail.rs`, methods of `Retail`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetailTool {
    Calculate,
    CancelPendingOrder,
    ExchangeDeliveredOrderItems,
    FindUserIdByEmail,
    FindUserIdByNameZip,
    GetOrderDetails,
    GetProductDetails,
    GetUserDetails,
    ListAllProductTypes,
    ModifyPendingOrderAddress,
    ModifyPendingOrderItems,
    ModifyPendingOrderPayment,
    ModifyUserAddress,
    ReturnDeliveredOrderItems,
    TransferToHumanAgents,
}

use Kind::{Text, TextList};

impl RetailTool {
    pub const ALL: [RetailTool; 15] = [
        RetailTool::Calculate,
        RetailTool::CancelPendingOrder,
        RetailTool::ExchangeDeliveredOrderItems,
        RetailTool::FindUserIdByEmail,
        RetailTool::FindUserIdByNameZip,
        RetailTool::GetOrderDetails,
        RetailTool::GetProductDetails,
        RetailTool::GetUserDetails,
        RetailTool::ListAllProductTypes,
        RetailTool::ModifyPendingOrderAddress,
        RetailTool::ModifyPendingOrderItems,
        RetailTool::ModifyPendingOrderPayment,
        RetailTool::ModifyUserAddress,
        RetailTool::ReturnDeliveredOrderItems,
        RetailTool::TransferToHumanAgents,
    ];

    pub fn from_name(name: &str) -> Option<RetailTool> {
        RetailTool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// τ²'s name, which is also the method's.
    pub fn name(self) -> &'static str {
        match self {
            RetailTool::Calculate => "calculate",
            RetailTool::CancelPendingOrder => "cancel_pending_order",
            RetailTool::ExchangeDeliveredOrderItems => "exchange_delivered_order_items",
            RetailTool::FindUserIdByEmail => "find_user_id_by_email",
            RetailTool::FindUserIdByNameZip => "find_user_id_by_name_zip",
            RetailTool::GetOrderDetails => "get_order_details",
            RetailTool::GetProductDetails => "get_product_details",
            RetailTool::GetUserDetails => "get_user_details",
            RetailTool::ListAllProductTypes => "list_all_product_types",
            RetailTool::ModifyPendingOrderAddress => "modify_pending_order_address",
            RetailTool::ModifyPendingOrderItems => "modify_pending_order_items",
            RetailTool::ModifyPendingOrderPayment => "modify_pending_order_payment",
            RetailTool::ModifyUserAddress => "modify_user_address",
            RetailTool::ReturnDeliveredOrderItems => "return_delivered_order_items",
            RetailTool::TransferToHumanAgents => "transfer_to_human_agents",
        }
    }

    /// Its parameters, in the method's order.
    pub fn params(self) -> &'static [(&'static str, Kind)] {
        const ADDRESS: [(&str, Kind); 6] =
            [("address1", Text), ("address2", Text), ("city", Text), ("state", Text), ("country", Text), ("zip", Text)];
        match self {
            RetailTool::Calculate => &[("expression", Text)],
            RetailTool::CancelPendingOrder => &[("order_id", Text), ("reason", Text)],
            RetailTool::ExchangeDeliveredOrderItems | RetailTool::ModifyPendingOrderItems => {
                &[("order_id", Text), ("item_ids", TextList), ("new_item_ids", TextList), ("payment_method_id", Text)]
            }
            RetailTool::FindUserIdByEmail => &[("email", Text)],
            RetailTool::FindUserIdByNameZip => &[("first_name", Text), ("last_name", Text), ("zip", Text)],
            RetailTool::GetOrderDetails => &[("order_id", Text)],
            RetailTool::GetProductDetails => &[("product_id", Text)],
            RetailTool::GetUserDetails => &[("user_id", Text)],
            RetailTool::ListAllProductTypes => &[],
            RetailTool::ModifyPendingOrderAddress => {
                const P: [(&str, Kind); 7] =
                    [("order_id", Text), ADDRESS[0], ADDRESS[1], ADDRESS[2], ADDRESS[3], ADDRESS[4], ADDRESS[5]];
                &P
            }
            RetailTool::ModifyPendingOrderPayment => &[("order_id", Text), ("payment_method_id", Text)],
            RetailTool::ModifyUserAddress => {
                const P: [(&str, Kind); 7] =
                    [("user_id", Text), ADDRESS[0], ADDRESS[1], ADDRESS[2], ADDRESS[3], ADDRESS[4], ADDRESS[5]];
                &P
            }
            RetailTool::ReturnDeliveredOrderItems => {
                &[("order_id", Text), ("item_ids", TextList), ("payment_method_id", Text)]
            }
            RetailTool::TransferToHumanAgents => &[("summary", Text)],
        }
    }

    /// Whether it can change the database (a call that cannot is still counted).
    pub fn writes(self) -> bool {
        matches!(
            self,
            RetailTool::CancelPendingOrder
                | RetailTool::ExchangeDeliveredOrderItems
                | RetailTool::ModifyPendingOrderAddress
                | RetailTool::ModifyPendingOrderItems
                | RetailTool::ModifyPendingOrderPayment
                | RetailTool::ModifyUserAddress
                | RetailTool::ReturnDeliveredOrderItems
        )
    }
}

/// The mock host's tools (`suites/tau2/mock.rs`, methods of `Mock`) and its checks (`assert_*`), which only the
/// harness calls, for a task's assertions on the final state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MockTool {
    CreateTask,
    GetUsers,
    UpdateTaskStatus,
    TransferToHumanAgents,
    AssertNumberOfTasks,
    AssertTaskStatus,
}

impl MockTool {
    pub const ALL: [MockTool; 6] = [
        MockTool::CreateTask,
        MockTool::GetUsers,
        MockTool::UpdateTaskStatus,
        MockTool::TransferToHumanAgents,
        MockTool::AssertNumberOfTasks,
        MockTool::AssertTaskStatus,
    ];

    pub fn from_name(name: &str) -> Option<MockTool> {
        MockTool::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            MockTool::CreateTask => "create_task",
            MockTool::GetUsers => "get_users",
            MockTool::UpdateTaskStatus => "update_task_status",
            MockTool::TransferToHumanAgents => "transfer_to_human_agents",
            MockTool::AssertNumberOfTasks => "assert_number_of_tasks",
            MockTool::AssertTaskStatus => "assert_task_status",
        }
    }

    pub fn params(self) -> &'static [(&'static str, Kind)] {
        match self {
            MockTool::CreateTask => &[("user_id", Text), ("title", Text), ("description", Kind::OptText)],
            MockTool::GetUsers => &[],
            MockTool::UpdateTaskStatus => &[("task_id", Text), ("status", Text)],
            MockTool::TransferToHumanAgents => &[("summary", Text)],
            MockTool::AssertNumberOfTasks => &[("user_id", Text), ("expected_number", Kind::Count)],
            MockTool::AssertTaskStatus => &[("task_id", Text), ("expected_status", Text)],
        }
    }
}

/// The airline host's types that tools take.
pub mod airline {
    use super::{Choice, Kind, Record};

    pub const CABIN: Choice = Choice {
        ty: "Cabin",
        variants: &[("basic_economy", "BasicEconomy"), ("economy", "Economy"), ("business", "Business")],
    };
    pub const FLIGHT_TYPE: Choice =
        Choice { ty: "FlightType", variants: &[("one_way", "OneWay"), ("round_trip", "RoundTrip")] };
    pub const INSURANCE: Choice = Choice { ty: "Insurance", variants: &[("yes", "Yes"), ("no", "No")] };
    pub const FLIGHTS: Record =
        Record { ty: "FlightInfo", fields: &[("flight_number", Kind::Text), ("date", Kind::Text)] };
    pub const PASSENGERS: Record = Record {
        ty: "Passenger",
        fields: &[("first_name", Kind::Text), ("last_name", Kind::Text), ("dob", Kind::Text)],
    };
    pub const PAYMENTS: Record = Record { ty: "Payment", fields: &[("payment_id", Kind::Text), ("amount", Kind::Int)] };
}

/// The airline host's tools (`suites/tau2/airline`, methods of `Airline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AirlineTool {
    BookReservation,
    Calculate,
    CancelReservation,
    GetFlightStatus,
    GetReservationDetails,
    GetUserDetails,
    ListAllAirports,
    SearchDirectFlight,
    SearchOnestopFlight,
    SendCertificate,
    TransferToHumanAgents,
    UpdateReservationBaggages,
    UpdateReservationFlights,
    UpdateReservationPassengers,
}

impl AirlineTool {
    pub const ALL: [AirlineTool; 14] = [
        AirlineTool::BookReservation,
        AirlineTool::Calculate,
        AirlineTool::CancelReservation,
        AirlineTool::GetFlightStatus,
        AirlineTool::GetReservationDetails,
        AirlineTool::GetUserDetails,
        AirlineTool::ListAllAirports,
        AirlineTool::SearchDirectFlight,
        AirlineTool::SearchOnestopFlight,
        AirlineTool::SendCertificate,
        AirlineTool::TransferToHumanAgents,
        AirlineTool::UpdateReservationBaggages,
        AirlineTool::UpdateReservationFlights,
        AirlineTool::UpdateReservationPassengers,
    ];

    pub fn from_name(name: &str) -> Option<AirlineTool> {
        AirlineTool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// τ²'s name, which is also the method's.
    pub fn name(self) -> &'static str {
        match self {
            AirlineTool::BookReservation => "book_reservation",
            AirlineTool::Calculate => "calculate",
            AirlineTool::CancelReservation => "cancel_reservation",
            AirlineTool::GetFlightStatus => "get_flight_status",
            AirlineTool::GetReservationDetails => "get_reservation_details",
            AirlineTool::GetUserDetails => "get_user_details",
            AirlineTool::ListAllAirports => "list_all_airports",
            AirlineTool::SearchDirectFlight => "search_direct_flight",
            AirlineTool::SearchOnestopFlight => "search_onestop_flight",
            AirlineTool::SendCertificate => "send_certificate",
            AirlineTool::TransferToHumanAgents => "transfer_to_human_agents",
            AirlineTool::UpdateReservationBaggages => "update_reservation_baggages",
            AirlineTool::UpdateReservationFlights => "update_reservation_flights",
            AirlineTool::UpdateReservationPassengers => "update_reservation_passengers",
        }
    }

    /// Its parameters, in the method's order.
    pub fn params(self) -> &'static [(&'static str, Kind)] {
        use airline::{CABIN, FLIGHTS, FLIGHT_TYPE, INSURANCE, PASSENGERS, PAYMENTS};
        use Kind::{Choice, Count, Int, Records};
        match self {
            AirlineTool::BookReservation => &[
                ("user_id", Text),
                ("origin", Text),
                ("destination", Text),
                ("flight_type", Choice(&FLIGHT_TYPE)),
                ("cabin", Choice(&CABIN)),
                ("flights", Records(&FLIGHTS)),
                ("passengers", Records(&PASSENGERS)),
                ("payment_methods", Records(&PAYMENTS)),
                ("total_baggages", Count),
                ("nonfree_baggages", Count),
                ("insurance", Choice(&INSURANCE)),
            ],
            AirlineTool::Calculate => &[("expression", Text)],
            AirlineTool::CancelReservation | AirlineTool::GetReservationDetails => &[("reservation_id", Text)],
            AirlineTool::GetFlightStatus => &[("flight_number", Text), ("date", Text)],
            AirlineTool::GetUserDetails => &[("user_id", Text)],
            AirlineTool::ListAllAirports => &[],
            AirlineTool::SearchDirectFlight | AirlineTool::SearchOnestopFlight => {
                &[("origin", Text), ("destination", Text), ("date", Text)]
            }
            AirlineTool::SendCertificate => &[("user_id", Text), ("amount", Int)],
            AirlineTool::TransferToHumanAgents => &[("summary", Text)],
            AirlineTool::UpdateReservationBaggages => &[
                ("reservation_id", Text),
                ("total_baggages", Count),
                ("nonfree_baggages", Count),
                ("payment_id", Text),
            ],
            AirlineTool::UpdateReservationFlights => &[
                ("reservation_id", Text),
                ("cabin", Choice(&CABIN)),
                ("flights", Records(&FLIGHTS)),
                ("payment_id", Text),
            ],
            AirlineTool::UpdateReservationPassengers => {
                &[("reservation_id", Text), ("passengers", Records(&PASSENGERS))]
            }
        }
    }
}

/// A function of telecom's host, on either side: a tool, a scene-setting function or an assertion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    pub name: &'static str,
    pub params: &'static [(&'static str, Kind)],
    /// It answers `Result<_, ToolError>` (an assertion that does is compared with `Ok(value)`).
    pub fallible: bool,
    /// It is one of the side's tools (not a task's scene-setting function or assertion).
    pub tool: bool,
}

const fn f(name: &'static str, params: &'static [(&'static str, Kind)], fallible: bool) -> Function {
    Function { name, params, fallible, tool: false }
}

const fn tool(name: &'static str, params: &'static [(&'static str, Kind)], fallible: bool) -> Function {
    Function { name, params, fallible, tool: true }
}

const CUSTOMER_LINE: [(&str, Kind); 2] = [("customer_id", Text), ("line_id", Text)];

/// The carrier's side of telecom (`Telecom`'s methods): the agent's tools, then the scene-setting functions and
/// assertions of τ²'s tasks.
pub const CARRIER: &[Function] = &[
    tool("get_customer_by_phone", &[("phone_number", Text)], true),
    tool("get_customer_by_id", &[("customer_id", Text)], true),
    tool("get_customer_by_name", &[("full_name", Text), ("dob", Text)], false),
    tool("get_details_by_id", &[("id", Text)], true),
    tool("suspend_line", &[CUSTOMER_LINE[0], CUSTOMER_LINE[1], ("reason", Text)], true),
    tool("resume_line", &CUSTOMER_LINE, true),
    tool("get_bills_for_customer", &[("customer_id", Text), ("limit", Kind::OptInt)], true),
    tool("send_payment_request", &[("customer_id", Text), ("bill_id", Text)], true),
    tool("get_data_usage", &CUSTOMER_LINE, true),
    tool("enable_roaming", &CUSTOMER_LINE, true),
    tool("disable_roaming", &CUSTOMER_LINE, true),
    tool("transfer_to_human_agents", &[("summary", Text)], false),
    tool("refuel_data", &[CUSTOMER_LINE[0], CUSTOMER_LINE[1], ("gb_amount", Kind::Float)], true),
    f("set_data_usage", &[CUSTOMER_LINE[0], CUSTOMER_LINE[1], ("data_used_gb", Kind::Float)], true),
    f(
        "suspend_line_for_overdue_bill",
        &[CUSTOMER_LINE[0], CUSTOMER_LINE[1], ("new_bill_id", Text), ("contract_ended", Kind::Bool)],
        true,
    ),
    f("assert_data_refueling_amount", &[CUSTOMER_LINE[0], CUSTOMER_LINE[1], ("expected_amount", Kind::Float)], true),
    f("assert_line_status", &[CUSTOMER_LINE[0], CUSTOMER_LINE[1], ("expected_status", Text)], true),
    f("assert_overdue_bill_exists", &[("customer_id", Text), ("overdue_bill_id", Text)], true),
    f("assert_no_overdue_bill", &[("overdue_bill_id", Text)], false),
];

const EXPECTED_STATUS: [(&str, Kind); 1] = [("expected_status", Kind::Bool)];

/// The customer's side of telecom (`Phone`'s methods): the user's tools, then the scene-setting functions and
/// assertions of τ²'s tasks.
pub const PHONE: &[Function] = &[
    tool("check_status_bar", &[], false),
    tool("check_network_status", &[], false),
    tool("check_network_mode_preference", &[], false),
    tool("set_network_mode_preference", &[("mode", Text)], false),
    tool("run_speed_test", &[], false),
    tool("toggle_airplane_mode", &[], false),
    tool("check_sim_status", &[], false),
    tool("reseat_sim_card", &[], false),
    tool("toggle_data", &[], false),
    tool("toggle_roaming", &[], false),
    tool("check_data_restriction_status", &[], false),
    tool("toggle_data_saver_mode", &[], false),
    tool("check_apn_settings", &[], false),
    tool("reset_apn_settings", &[], false),
    tool("check_wifi_status", &[], false),
    tool("toggle_wifi", &[], false),
    tool("check_wifi_calling_status", &[], false),
    tool("toggle_wifi_calling", &[], false),
    tool("check_vpn_status", &[], false),
    tool("connect_vpn", &[], false),
    tool("disconnect_vpn", &[], false),
    tool("check_installed_apps", &[], false),
    tool("check_app_status", &[("app_name", Text)], false),
    tool("check_app_permissions", &[("app_name", Text)], false),
    tool("grant_app_permission", &[("app_name", Text), ("permission", Text)], false),
    tool("can_send_mms", &[], false),
    tool("reboot_device", &[], false),
    tool("check_payment_request", &[], false),
    tool("make_payment", &[], false),
    f("set_user_info", &[("name", Text), ("phone_number", Text)], false),
    f("set_user_location", &[("abroad", Kind::Bool)], false),
    f("simulate_network_search", &[], false),
    f("turn_airplane_mode_on", &[], false),
    f("turn_airplane_mode_off", &[], false),
    f("unseat_sim_card", &[], false),
    f("lock_sim_card", &[("mode", Text)], false),
    f("turn_data_on", &[], false),
    f("turn_data_off", &[], false),
    f("turn_roaming_on", &[], false),
    f("turn_roaming_off", &[], false),
    f("turn_data_saver_mode_on", &[], false),
    f("turn_data_saver_mode_off", &[], false),
    f("break_apn_settings", &[], false),
    f("break_apn_mms_setting", &[], false),
    f("break_vpn", &[], true),
    f("set_wifi_calling", &[("enabled", Kind::Bool), ("mms_over_wifi", Kind::OptBool)], false),
    f("remove_app_permission", &[("app_name", Text), ("permission", Text)], false),
    f("assert_airplane_mode_status", &EXPECTED_STATUS, false),
    f("assert_service_status", &[("expected_status", Text)], true),
    f("assert_mobile_data_status", &EXPECTED_STATUS, false),
    f("assert_mobile_roaming_status", &EXPECTED_STATUS, false),
    f("assert_mobile_data_saver_mode_status", &EXPECTED_STATUS, false),
    f("assert_internet_speed", &[("expected_speed", Kind::Float), ("expected_desc", Kind::OptText)], false),
    f("assert_internet_not_excellent", &[], false),
    f("assert_can_send_mms", &EXPECTED_STATUS, false),
    f("assert_mobile_data_usage_exceeded", &EXPECTED_STATUS, false),
];

/// A telecom function by side (`"assistant"` or `"user"`) and name.
pub fn telecom_function(side: &str, name: &str) -> Option<&'static Function> {
    let table = if side == "user" { PHONE } else { CARRIER };
    table.iter().find(|f| f.name == name)
}
