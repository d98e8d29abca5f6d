//! τ²-bench's retail domain as a Lacuna host: the store's data types, and `Retail`, the store itself, whose methods
//! are the agent's tools (ported from τ²'s retail toolkit: what each checks, changes and returns, and its errors).
//! `lacuna bench suites/tau2-retail.toml` opens a session on this crate per task: the first turn loads the
//! database (`let mut retail = Retail::load(..)`), each user message is a turn the agent writes against `retail`,
//! and the last turn compares the database with the one the task's expected actions leave (`Retail::verdict`).
//!
//! The database is τ²'s own `db.json`, read with `serde_json` into the types below.
//!
//! τ²'s semantics kept as they are, quirks included: `modify_pending_order_items` gives every modified item the
//! price and options of the *last* new item in the list; `exchange_delivered_order_items` and
//! `return_delivered_order_items` only record the request; `transfer_to_human_agents` changes nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[path = "../../python.rs"]
mod python;
#[path = "../../support.rs"]
mod support;

pub use store::Retail;
pub use support::ToolError;

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Address {
    pub address1: String,
    pub address2: String,
    pub city: String,
    pub country: String,
    pub state: String,
    pub zip: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Name {
    pub first_name: String,
    pub last_name: String,
}

/// How a user pays. Only a gift card has a balance the store keeps.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum PaymentMethod {
    CreditCard { id: String, brand: String, last_four: String },
    Paypal { id: String },
    GiftCard { id: String, balance: f64 },
}

impl PaymentMethod {
    pub fn id(&self) -> &str {
        match self {
            PaymentMethod::CreditCard { id, .. }
            | PaymentMethod::Paypal { id }
            | PaymentMethod::GiftCard { id, .. } => id,
        }
    }

    pub fn is_gift_card(&self) -> bool {
        matches!(self, PaymentMethod::GiftCard { .. })
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct User {
    pub user_id: String,
    pub name: Name,
    pub address: Address,
    pub email: String,
    /// By payment method id, e.g. "credit_card_9513926", "gift_card_1725971", "paypal_5727330".
    pub payment_methods: BTreeMap<String, PaymentMethod>,
    /// Order ids, e.g. "#W2378156".
    pub orders: Vec<String>,
}

/// One item of a product: a choice of its options, with a price and whether it can be ordered.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Variant {
    pub item_id: String,
    pub options: BTreeMap<String, String>,
    pub available: bool,
    pub price: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Product {
    pub name: String,
    pub product_id: String,
    /// By item id.
    pub variants: BTreeMap<String, Variant>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct OrderItem {
    pub name: String,
    pub product_id: String,
    pub item_id: String,
    pub price: f64,
    pub options: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Fulfillment {
    pub tracking_id: Vec<String>,
    pub item_ids: Vec<String>,
}

/// A payment or a refund ("payment" | "refund").
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Payment {
    pub transaction_type: String,
    pub amount: f64,
    pub payment_method_id: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Order {
    pub order_id: String,
    pub user_id: String,
    pub address: Address,
    pub items: Vec<OrderItem>,
    /// "pending", "processed", "delivered", "cancelled", "pending (item modified)", "exchange requested",
    /// "return requested".
    pub status: String,
    pub fulfillments: Vec<Fulfillment>,
    pub payment_history: Vec<Payment>,
    pub cancel_reason: Option<String>,
    pub exchange_items: Option<Vec<String>>,
    pub exchange_new_items: Option<Vec<String>>,
    pub exchange_payment_method_id: Option<String>,
    pub exchange_price_difference: Option<f64>,
    pub return_items: Option<Vec<String>>,
    pub return_payment_method_id: Option<String>,
}

mod store {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::python::round2;
    use super::support::{differ, read_db, verdict, Trace};
    use super::{Address, Order, Payment, PaymentMethod, Product, ToolError, User, Variant};

    fn fail<T>(why: &str) -> Result<T, ToolError> {
        Err(ToolError(why.to_string()))
    }

    /// Case-insensitive, as τ² matches names and emails (Python's `str.lower()`: no trimming, accents kept).
    fn fold(text: &str) -> String {
        text.to_lowercase()
    }

    /// The store: its database and the tools that read and change it. The agent reaches the data only through
    /// these methods.
    #[derive(Debug, Clone)]
    pub struct Retail {
        users: BTreeMap<String, User>,
        orders: BTreeMap<String, Order>,
        products: BTreeMap<String, Product>,
        /// The tools called, in order.
        trace: Trace,
    }

    impl Retail {
        /// Reads τ²'s retail `db.json`.
        pub fn load(path: &str) -> Result<Retail, String> {
            #[derive(Deserialize)]
            struct Db {
                users: BTreeMap<String, User>,
                orders: BTreeMap<String, Order>,
                products: BTreeMap<String, Product>,
            }
            let db: Db = read_db(path)?;
            Ok(Retail { users: db.users, orders: db.orders, products: db.products, trace: Trace::default() })
        }

        /// The database as τ² dumps it: `{"users": {..}, "orders": {..}, "products": {..}}`.
        pub fn to_json(&self) -> serde_json::Value {
            serde_json::json!({"users": self.users, "orders": self.orders, "products": self.products})
        }

        /// How many tools were called.
        pub fn tool_calls(&self) -> usize {
            self.trace.len()
        }

        /// The records (users, orders, products) whose contents differ from `expected`'s.
        pub fn diff(&self, expected: &Retail) -> Vec<String> {
            let mut out = Vec::new();
            differ("user", &self.users, &expected.users, &mut out);
            differ("order", &self.orders, &expected.orders, &mut out);
            differ("product", &self.products, &expected.products, &mut out);
            out
        }

        /// What the benchmark harness reads after a task, as JSON: `{"tool_calls": N, "diff": [..], "assertions":
        /// [..]}` (the task's assertions on the final state, as the harness evaluated them).
        pub fn verdict(&self, expected: &Retail, assertions: &[bool]) -> String {
            verdict(&self.trace, &self.diff(expected), assertions)
        }

        fn order_mut(&mut self, order_id: &str) -> Result<&mut Order, ToolError> {
            match self.orders.get_mut(order_id) {
                Some(order) => Ok(order),
                None => fail("Order not found"),
            }
        }

        fn payment_method(&self, user_id: &str, payment_method_id: &str) -> Result<PaymentMethod, ToolError> {
            let user = match self.users.get(user_id) {
                Some(user) => user,
                None => return fail("User not found"),
            };
            match user.payment_methods.get(payment_method_id) {
                Some(method) => Ok(method.clone()),
                None => fail("Payment method not found"),
            }
        }

        /// Adds `delta` to a gift card's balance (rounded to cents); other methods keep no balance.
        fn credit_gift_card(&mut self, user_id: &str, payment_method_id: &str, delta: f64) {
            if let Some(user) = self.users.get_mut(user_id) {
                if let Some(PaymentMethod::GiftCard { balance, .. }) = user.payment_methods.get_mut(payment_method_id) {
                    *balance = round2(*balance + delta);
                }
            }
        }

        fn variant(&self, product_id: &str, item_id: &str) -> Result<Variant, ToolError> {
            let product = match self.products.get(product_id) {
                Some(product) => product,
                None => return fail("Product not found"),
            };
            match product.variants.get(item_id) {
                Some(variant) => Ok(variant.clone()),
                None => fail("Variant not found"),
            }
        }

        /// The price difference of exchanging `item_ids` of `order` for `new_item_ids` (same products, available),
        /// and the last new item.
        fn new_items(
            &self,
            order: &Order,
            item_ids: &[&str],
            new_item_ids: &[&str],
            must_differ: bool,
        ) -> Result<(f64, Option<Variant>), ToolError> {
            let mut diff_price = 0.0;
            let mut last = None;
            for (item_id, new_item_id) in item_ids.iter().zip(new_item_ids) {
                if must_differ && item_id == new_item_id {
                    return fail("The new item id should be different from the old item id");
                }
                let item = match order.items.iter().find(|i| i.item_id == *item_id) {
                    Some(item) => item,
                    None => return fail(&format!("Item {item_id} not found")),
                };
                let variant = self.variant(&item.product_id, new_item_id)?;
                if !variant.available {
                    return fail(&format!("New item {new_item_id} not found or available"));
                }
                diff_price += variant.price - item.price;
                last = Some(variant);
            }
            Ok((diff_price, last))
        }

        /// Evaluates an arithmetic expression (numbers, `+ - * /`, parentheses, spaces) as Python does, and gives
        /// the result rounded to 2 decimals as text, e.g. "699.98".
        pub fn calculate(&mut self, expression: &str) -> Result<String, ToolError> {
            self.trace.record("calculate", serde_json::json!({"expression": expression}));
            super::python::calculate(expression).map_err(ToolError)
        }

        /// Cancels a pending order; `reason` is "no longer needed" or "ordered by mistake". Payments made with a
        /// gift card are refunded to it at once.
        pub fn cancel_pending_order(&mut self, order_id: &str, reason: &str) -> Result<Order, ToolError> {
            self.trace.record("cancel_pending_order", serde_json::json!({"order_id": order_id, "reason": reason}));
            let order = self.order_mut(order_id)?.clone();
            if order.status != "pending" {
                return fail("Non-pending order cannot be cancelled");
            }
            if reason != "no longer needed" && reason != "ordered by mistake" {
                return fail("Invalid reason");
            }
            let mut refunds = Vec::new();
            for payment in &order.payment_history {
                self.payment_method(&order.user_id, &payment.payment_method_id)?;
                refunds.push(Payment {
                    transaction_type: "refund".to_string(),
                    amount: payment.amount,
                    payment_method_id: payment.payment_method_id.clone(),
                });
            }
            for refund in &refunds {
                self.credit_gift_card(&order.user_id, &refund.payment_method_id, refund.amount);
            }
            let order = self.order_mut(order_id)?;
            order.status = "cancelled".to_string();
            order.cancel_reason = Some(reason.to_string());
            order.payment_history.extend(refunds);
            Ok(order.clone())
        }

        /// Asks to exchange items of a delivered order for other items of the same products (once per order);
        /// the price difference is paid with or refunded to `payment_method_id`.
        pub fn exchange_delivered_order_items(
            &mut self,
            order_id: &str,
            item_ids: &[&str],
            new_item_ids: &[&str],
            payment_method_id: &str,
        ) -> Result<Order, ToolError> {
            self.trace.record("exchange_delivered_order_items", serde_json::json!({"order_id": order_id, "item_ids": item_ids, "new_item_ids": new_item_ids, "payment_method_id": payment_method_id}));
            let order = self.order_mut(order_id)?.clone();
            if order.status != "delivered" {
                return fail("Non-delivered order cannot be exchanged");
            }
            has_items(&order, item_ids, |item_id| format!("Number of {item_id} not found."))?;
            if item_ids.len() != new_item_ids.len() {
                return fail("The number of items to be exchanged should match.");
            }
            let (diff_price, _) = self.new_items(&order, item_ids, new_item_ids, false)?;
            let diff_price = round2(diff_price);
            if let PaymentMethod::GiftCard { balance, .. } = self.payment_method(&order.user_id, payment_method_id)? {
                if balance < diff_price {
                    return fail("Insufficient gift card balance to pay for the price difference");
                }
            }
            let order = self.order_mut(order_id)?;
            order.status = "exchange requested".to_string();
            order.exchange_items = Some(sorted(item_ids));
            order.exchange_new_items = Some(sorted(new_item_ids));
            order.exchange_payment_method_id = Some(payment_method_id.to_string());
            order.exchange_price_difference = Some(diff_price);
            Ok(order.clone())
        }

        /// The user id of the user with this name and zip code.
        pub fn find_user_id_by_name_zip(
            &mut self,
            first_name: &str,
            last_name: &str,
            zip: &str,
        ) -> Result<String, ToolError> {
            self.trace.record(
                "find_user_id_by_name_zip",
                serde_json::json!({"first_name": first_name, "last_name": last_name, "zip": zip}),
            );
            let (first, last) = (fold(first_name), fold(last_name));
            for (id, user) in &self.users {
                if fold(&user.name.first_name) == first && fold(&user.name.last_name) == last && user.address.zip == zip
                {
                    return Ok(id.clone());
                }
            }
            fail("User not found")
        }

        /// The user id of the user with this email.
        pub fn find_user_id_by_email(&mut self, email: &str) -> Result<String, ToolError> {
            self.trace.record("find_user_id_by_email", serde_json::json!({"email": email}));
            let wanted = fold(email);
            for (id, user) in &self.users {
                if fold(&user.email) == wanted {
                    return Ok(id.clone());
                }
            }
            fail("User not found")
        }

        /// An order's status and details; ids look like "#W0000000".
        pub fn get_order_details(&mut self, order_id: &str) -> Result<Order, ToolError> {
            self.trace.record("get_order_details", serde_json::json!({"order_id": order_id}));
            Ok(self.order_mut(order_id)?.clone())
        }

        /// A product and its variants (items); a product id is not an item id.
        pub fn get_product_details(&mut self, product_id: &str) -> Result<Product, ToolError> {
            self.trace.record("get_product_details", serde_json::json!({"product_id": product_id}));
            match self.products.get(product_id) {
                Some(product) => Ok(product.clone()),
                None => fail("Product not found"),
            }
        }

        /// A user's details, including their order ids and payment methods.
        pub fn get_user_details(&mut self, user_id: &str) -> Result<User, ToolError> {
            self.trace.record("get_user_details", serde_json::json!({"user_id": user_id}));
            match self.users.get(user_id) {
                Some(user) => Ok(user.clone()),
                None => fail("User not found"),
            }
        }

        /// Every product's name and product id, by name.
        pub fn list_all_product_types(&mut self) -> BTreeMap<String, String> {
            self.trace.record("list_all_product_types", serde_json::json!({}));
            self.products.values().map(|p| (p.name.clone(), p.product_id.clone())).collect()
        }

        /// Changes the shipping address of a pending order.
        #[allow(clippy::too_many_arguments)]
        pub fn modify_pending_order_address(
            &mut self,
            order_id: &str,
            address1: &str,
            address2: &str,
            city: &str,
            state: &str,
            country: &str,
            zip: &str,
        ) -> Result<Order, ToolError> {
            self.trace.record("modify_pending_order_address", serde_json::json!({"order_id": order_id, "address1": address1, "address2": address2, "city": city, "state": state, "country": country, "zip": zip}));
            let order = self.order_mut(order_id)?;
            if !order.status.contains("pending") {
                return fail("Non-pending order cannot be modified");
            }
            order.address = address(address1, address2, city, state, country, zip);
            Ok(order.clone())
        }

        /// Changes items of a pending order to other items of the same products (once per order); the price
        /// difference is paid with or refunded to `payment_method_id`.
        pub fn modify_pending_order_items(
            &mut self,
            order_id: &str,
            item_ids: &[&str],
            new_item_ids: &[&str],
            payment_method_id: &str,
        ) -> Result<Order, ToolError> {
            self.trace.record("modify_pending_order_items", serde_json::json!({"order_id": order_id, "item_ids": item_ids, "new_item_ids": new_item_ids, "payment_method_id": payment_method_id}));
            let order = self.order_mut(order_id)?.clone();
            if order.status != "pending" {
                return fail("Non-pending order cannot be modified");
            }
            has_items(&order, item_ids, |item_id| format!("{item_id} not found"))?;
            if item_ids.len() != new_item_ids.len() {
                return fail("The number of items to be exchanged should match");
            }
            let (diff_price, last_variant) = self.new_items(&order, item_ids, new_item_ids, true)?;
            let method = self.payment_method(&order.user_id, payment_method_id)?;
            if let PaymentMethod::GiftCard { balance, .. } = method {
                if balance < diff_price {
                    return fail("Insufficient gift card balance to pay for the new item");
                }
            }
            self.credit_gift_card(&order.user_id, payment_method_id, -diff_price);
            let order = self.order_mut(order_id)?;
            order.payment_history.push(Payment {
                transaction_type: if diff_price > 0.0 { "payment" } else { "refund" }.to_string(),
                amount: diff_price.abs(),
                payment_method_id: payment_method_id.to_string(),
            });
            for (item_id, new_item_id) in item_ids.iter().zip(new_item_ids) {
                if let (Some(item), Some(variant)) =
                    (order.items.iter_mut().find(|i| i.item_id == *item_id), last_variant.as_ref())
                {
                    item.item_id = new_item_id.to_string();
                    item.price = variant.price;
                    item.options = variant.options.clone();
                }
            }
            order.status = "pending (item modified)".to_string();
            Ok(order.clone())
        }

        /// Pays a pending order with another of the user's payment methods instead (the old one refunded).
        pub fn modify_pending_order_payment(
            &mut self,
            order_id: &str,
            payment_method_id: &str,
        ) -> Result<Order, ToolError> {
            self.trace.record(
                "modify_pending_order_payment",
                serde_json::json!({"order_id": order_id, "payment_method_id": payment_method_id}),
            );
            let order = self.order_mut(order_id)?.clone();
            if !order.status.contains("pending") {
                return fail("Non-pending order cannot be modified");
            }
            let method = self.payment_method(&order.user_id, payment_method_id)?;
            if order.payment_history.len() != 1 || order.payment_history[0].transaction_type != "payment" {
                return fail("There should be exactly one payment for a pending order");
            }
            let old_method_id = order.payment_history[0].payment_method_id.clone();
            if old_method_id == payment_method_id {
                return fail("The new payment method should be different from the current one");
            }
            let amount = order.payment_history[0].amount;
            if let PaymentMethod::GiftCard { balance, .. } = method {
                if balance < amount {
                    return fail("Insufficient gift card balance to pay for the order");
                }
            }
            self.payment_method(&order.user_id, &old_method_id)?;
            self.credit_gift_card(&order.user_id, payment_method_id, -amount);
            self.credit_gift_card(&order.user_id, &old_method_id, amount);
            let order = self.order_mut(order_id)?;
            order.payment_history.push(Payment {
                transaction_type: "payment".to_string(),
                amount,
                payment_method_id: payment_method_id.to_string(),
            });
            order.payment_history.push(Payment {
                transaction_type: "refund".to_string(),
                amount,
                payment_method_id: old_method_id,
            });
            Ok(order.clone())
        }

        /// Changes a user's default address.
        #[allow(clippy::too_many_arguments)]
        pub fn modify_user_address(
            &mut self,
            user_id: &str,
            address1: &str,
            address2: &str,
            city: &str,
            state: &str,
            country: &str,
            zip: &str,
        ) -> Result<User, ToolError> {
            self.trace.record("modify_user_address", serde_json::json!({"user_id": user_id, "address1": address1, "address2": address2, "city": city, "state": state, "country": country, "zip": zip}));
            match self.users.get_mut(user_id) {
                Some(user) => {
                    user.address = address(address1, address2, city, state, country, zip);
                    Ok(user.clone())
                }
                None => fail("User not found"),
            }
        }

        /// Asks to return items of a delivered order (once per order), refunded to the original payment method
        /// or a gift card.
        pub fn return_delivered_order_items(
            &mut self,
            order_id: &str,
            item_ids: &[&str],
            payment_method_id: &str,
        ) -> Result<Order, ToolError> {
            self.trace.record(
                "return_delivered_order_items",
                serde_json::json!({"order_id": order_id, "item_ids": item_ids, "payment_method_id": payment_method_id}),
            );
            let order = self.order_mut(order_id)?.clone();
            if order.status != "delivered" {
                return fail("Non-delivered order cannot be returned");
            }
            let method = self.payment_method(&order.user_id, payment_method_id)?;
            let original = order.payment_history.first().map(|p| p.payment_method_id.as_str());
            if !method.is_gift_card() && original != Some(payment_method_id) {
                return fail("Payment method should be the original payment method");
            }
            has_items(&order, item_ids, |_| "Some item not found".to_string())?;
            let order = self.order_mut(order_id)?;
            order.status = "return requested".to_string();
            order.return_items = Some(sorted(item_ids));
            order.return_payment_method_id = Some(payment_method_id.to_string());
            Ok(order.clone())
        }

        /// Hands the user to a human agent, with a summary of their issue.
        pub fn transfer_to_human_agents(&mut self, summary: &str) -> String {
            self.trace.record("transfer_to_human_agents", serde_json::json!({"summary": summary}));
            "Transfer successful".to_string()
        }
    }

    /// Whether `order` has every item of `item_ids`, as many times as it is listed.
    fn has_items(order: &Order, item_ids: &[&str], missing: impl Fn(&str) -> String) -> Result<(), ToolError> {
        for item_id in item_ids {
            let wanted = item_ids.iter().filter(|i| *i == item_id).count();
            if wanted > order.items.iter().filter(|i| i.item_id == *item_id).count() {
                return Err(ToolError(missing(item_id)));
            }
        }
        Ok(())
    }

    fn sorted(ids: &[&str]) -> Vec<String> {
        let mut ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        ids.sort();
        ids
    }

    fn address(address1: &str, address2: &str, city: &str, state: &str, country: &str, zip: &str) -> Address {
        Address {
            address1: address1.to_string(),
            address2: address2.to_string(),
            city: city.to_string(),
            country: country.to_string(),
            state: state.to_string(),
            zip: zip.to_string(),
        }
    }
}
