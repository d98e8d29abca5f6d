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
    /// `usize`
    Count,
}

/// The retail host's tools (`suites/tau2/retail.rs`, methods of `Retail`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetailTool {
    Calculate,
    CancelPendingOrder,
    ExchangeDeliveredOrderItems,
    FindUserIdByEmail,
    FindUserIdByNameZip,
    GetItemDetails,
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
    pub const ALL: [RetailTool; 16] = [
        RetailTool::Calculate,
        RetailTool::CancelPendingOrder,
        RetailTool::ExchangeDeliveredOrderItems,
        RetailTool::FindUserIdByEmail,
        RetailTool::FindUserIdByNameZip,
        RetailTool::GetItemDetails,
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
            RetailTool::GetItemDetails => "get_item_details",
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
            RetailTool::GetItemDetails => &[("item_id", Text)],
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
