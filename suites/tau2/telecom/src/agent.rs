//! `Telecom`: the carrier's records and the agent's tools on them; `sync`, the carrier's state carried over to the
//! phone.

use serde::Deserialize;

use super::date::Date;
use super::handset::Phone;
use super::python::repr;
use super::support::Trace;
use super::{
    Bill, BillStatus, Customer, DataUsage, Details, Device, Line, LineChange, LineItem, LineStatus, PaymentRequest,
    Plan, Refuel, ToolError,
};

fn fail<T>(why: impl Into<String>) -> Result<T, ToolError> {
    Err(ToolError(why.into()))
}

/// The carrier's systems: plans, customers, lines, bills and devices, reached only through these methods.
#[derive(Debug, Clone)]
pub struct Telecom {
    plans: Vec<Plan>,
    customers: Vec<Customer>,
    lines: Vec<Line>,
    bills: Vec<Bill>,
    devices: Vec<Device>,
    /// Draft bills created so far (their ids are numbered from it).
    new_bills: u32,
    /// The tools called, in order.
    trace: Trace,
}

impl Telecom {
    /// Reads τ²'s telecom `db.toml`.
    pub fn load(path: &str) -> Result<Telecom, String> {
        #[derive(Deserialize)]
        struct Db {
            #[serde(default)]
            plans: Vec<Plan>,
            #[serde(default)]
            customers: Vec<Customer>,
            #[serde(default)]
            lines: Vec<Line>,
            #[serde(default)]
            bills: Vec<Bill>,
            #[serde(default)]
            devices: Vec<Device>,
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let db: Db = toml::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        Ok(Telecom {
            plans: db.plans,
            customers: db.customers,
            lines: db.lines,
            bills: db.bills,
            devices: db.devices,
            new_bills: 0,
            trace: Trace::default(),
        })
    }

    /// The records as τ² dumps them: `{"plans": [..], "customers": [..], "lines": [..], "bills": [..], "devices":
    /// [..]}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "plans": self.plans, "customers": self.customers, "lines": self.lines, "bills": self.bills,
            "devices": self.devices,
        })
    }

    /// How many of the agent's tools were called.
    pub fn tool_calls(&self) -> usize {
        self.trace.len()
    }

    // ---- Lookups (each fails with τ²'s text) ----

    fn customer(&self, customer_id: &str) -> Result<&Customer, ToolError> {
        match self.customers.iter().find(|c| c.customer_id == customer_id) {
            Some(customer) => Ok(customer),
            None => fail(format!("Customer with ID {customer_id} not found")),
        }
    }

    fn customer_index(&self, customer_id: &str) -> Result<usize, ToolError> {
        match self.customers.iter().position(|c| c.customer_id == customer_id) {
            Some(k) => Ok(k),
            None => fail(format!("Customer with ID {customer_id} not found")),
        }
    }

    fn line_index(&self, line_id: &str) -> Result<usize, ToolError> {
        match self.lines.iter().position(|l| l.line_id == line_id) {
            Some(k) => Ok(k),
            None => fail(format!("Line with ID {line_id} not found")),
        }
    }

    fn line_by_phone(&self, phone_number: &str) -> Result<&Line, ToolError> {
        match self.lines.iter().find(|l| l.phone_number == phone_number) {
            Some(line) => Ok(line),
            None => fail(format!("Line with phone number {phone_number} not found")),
        }
    }

    fn plan(&self, plan_id: &str) -> Result<&Plan, ToolError> {
        match self.plans.iter().find(|p| p.plan_id == plan_id) {
            Some(plan) => Ok(plan),
            None => fail(format!("Plan with ID {plan_id} not found")),
        }
    }

    fn device(&self, device_id: &str) -> Result<&Device, ToolError> {
        match self.devices.iter().find(|d| d.device_id == device_id) {
            Some(device) => Ok(device),
            None => fail(format!("Device with ID {device_id} not found")),
        }
    }

    fn bill_index(&self, bill_id: &str) -> Result<usize, ToolError> {
        match self.bills.iter().position(|b| b.bill_id == bill_id) {
            Some(k) => Ok(k),
            None => fail(format!("Bill with ID {bill_id} not found")),
        }
    }

    /// One of the customer's lines (the index into `lines`).
    fn target_line(&self, customer_id: &str, line_id: &str) -> Result<usize, ToolError> {
        let customer = self.customer(customer_id)?;
        if !customer.line_ids.iter().any(|l| l == line_id) {
            return fail(format!("Line {line_id} not found for customer {customer_id}"));
        }
        self.line_index(line_id)
    }

    fn customer_by_phone(&self, phone_number: &str) -> Result<&Customer, ToolError> {
        for customer in &self.customers {
            if customer.phone_number == phone_number {
                return Ok(customer);
            }
            for line_id in &customer.line_ids {
                if self.lines[self.line_index(line_id)?].phone_number == phone_number {
                    return Ok(customer);
                }
            }
        }
        fail(format!("Customer with phone number {phone_number} not found"))
    }

    /// The customer's bills awaiting payment, in the customer's order.
    fn bills_awaiting_payment(&self, customer: &Customer) -> Result<Vec<usize>, ToolError> {
        let mut out = Vec::new();
        for bill_id in &customer.bill_ids {
            let k = self.bill_index(bill_id)?;
            if self.bills[k].status == BillStatus::AwaitingPayment {
                out.push(k);
            }
        }
        Ok(out)
    }

    // ---- The agent's tools ----

    /// The customer whose contact number, or one of whose lines, is `phone_number` ("555-123-2002").
    pub fn get_customer_by_phone(&mut self, phone_number: &str) -> Result<Customer, ToolError> {
        self.trace.record("get_customer_by_phone", serde_json::json!({"phone_number": phone_number}));
        self.customer_by_phone(phone_number).cloned()
    }

    /// A customer by id ("C1001").
    pub fn get_customer_by_id(&mut self, customer_id: &str) -> Result<Customer, ToolError> {
        self.trace.record("get_customer_by_id", serde_json::json!({"customer_id": customer_id}));
        self.customer(customer_id).cloned()
    }

    /// The customers with this full name (case ignored) and date of birth ("YYYY-MM-DD").
    pub fn get_customer_by_name(&mut self, full_name: &str, dob: &str) -> Vec<Customer> {
        self.trace.record("get_customer_by_name", serde_json::json!({"full_name": full_name, "dob": dob}));
        let name = full_name.to_lowercase();
        self.customers
            .iter()
            .filter(|c| c.full_name.to_lowercase() == name && c.date_of_birth == dob)
            .cloned()
            .collect()
    }

    /// The record an id names, by its first letter: a line (L), device (D), bill (B), customer (C) or plan (P).
    pub fn get_details_by_id(&mut self, id: &str) -> Result<Details, ToolError> {
        self.trace.record("get_details_by_id", serde_json::json!({"id": id}));
        match id.chars().next() {
            Some('L') => Ok(Details::Line(self.lines[self.line_index(id)?].clone())),
            Some('D') => self.device(id).cloned().map(Details::Device),
            Some('B') => Ok(Details::Bill(self.bills[self.bill_index(id)?].clone())),
            Some('C') => self.customer(id).cloned().map(Details::Customer),
            Some('P') => self.plan(id).cloned().map(Details::Plan),
            _ => fail(format!("Unknown ID format or type: {id}")),
        }
    }

    /// Suspends an active line of the customer's (a $5/month holding fee applies).
    pub fn suspend_line(&mut self, customer_id: &str, line_id: &str, reason: &str) -> Result<LineChange, ToolError> {
        self.trace.record(
            "suspend_line",
            serde_json::json!({"customer_id": customer_id, "line_id": line_id, "reason": reason}),
        );
        let k = self.target_line(customer_id, line_id)?;
        let line = &mut self.lines[k];
        if line.status != LineStatus::Active {
            return fail("Line must be active to suspend");
        }
        line.status = LineStatus::Suspended;
        line.suspension_start_date = Some(Date::TODAY.to_string());
        Ok(LineChange {
            message: "Line suspended successfully. $5/month holding fee will apply.".to_string(),
            line: line.clone(),
        })
    }

    /// Resumes a suspended (or not yet activated) line of the customer's.
    pub fn resume_line(&mut self, customer_id: &str, line_id: &str) -> Result<LineChange, ToolError> {
        self.trace.record("resume_line", serde_json::json!({"customer_id": customer_id, "line_id": line_id}));
        let k = self.target_line(customer_id, line_id)?;
        let line = &mut self.lines[k];
        if !matches!(line.status, LineStatus::Suspended | LineStatus::PendingActivation) {
            return fail("Line must be suspended to resume");
        }
        line.status = LineStatus::Active;
        line.suspension_start_date = None;
        Ok(LineChange { message: "Line resumed successfully".to_string(), line: line.clone() })
    }

    /// The customer's bills, newest issue date first; at most `limit` (12 when `None`; a negative limit leaves
    /// that many out at the end, as τ²'s Python slice does).
    pub fn get_bills_for_customer(&mut self, customer_id: &str, limit: Option<i64>) -> Result<Vec<Bill>, ToolError> {
        self.trace.record("get_bills_for_customer", serde_json::json!({"customer_id": customer_id, "limit": limit}));
        let customer = self.customer(customer_id)?;
        let mut bills = Vec::new();
        for bill_id in &customer.bill_ids {
            bills.push(self.bills[self.bill_index(bill_id)?].clone());
        }
        bills.sort_by(|a, b| b.issue_date.cmp(&a.issue_date));
        let n = bills.len() as i64;
        let limit = limit.unwrap_or(12);
        let keep = if limit >= 0 { limit.min(n) } else { (n + limit).max(0) };
        bills.truncate(keep as usize);
        Ok(bills)
    }

    /// Asks the customer to pay one of their bills (on their phone); only one bill may await payment at a time.
    pub fn send_payment_request(&mut self, customer_id: &str, bill_id: &str) -> Result<String, ToolError> {
        self.trace.record("send_payment_request", serde_json::json!({"customer_id": customer_id, "bill_id": bill_id}));
        let customer = self.customer(customer_id)?;
        if !self.bills_awaiting_payment(customer)?.is_empty() {
            return fail("A bill is already awaiting payment for this customer");
        }
        if !customer.bill_ids.iter().any(|b| b == bill_id) {
            return fail(format!("Bill {bill_id} not found for customer {customer_id}"));
        }
        let k = self.bill_index(bill_id)?;
        self.bills[k].status = BillStatus::AwaitingPayment;
        Ok(format!("Payment request sent to the customer for bill {bill_id}"))
    }

    /// A line's data use, allowance and refuelled data this billing cycle, and when the cycle ends.
    pub fn get_data_usage(&mut self, customer_id: &str, line_id: &str) -> Result<DataUsage, ToolError> {
        self.trace.record("get_data_usage", serde_json::json!({"customer_id": customer_id, "line_id": line_id}));
        let line = &self.lines[self.target_line(customer_id, line_id)?];
        let plan = self.plan(&line.plan_id)?;
        Ok(DataUsage {
            line_id: line_id.to_string(),
            data_used_gb: line.data_used_gb,
            data_limit_gb: plan.data_limit_gb,
            data_refueling_gb: line.data_refueling_gb,
            cycle_end_date: Date::TODAY.next_month().plus_days(-1).to_string(),
        })
    }

    /// Allows the line to roam abroad.
    pub fn enable_roaming(&mut self, customer_id: &str, line_id: &str) -> Result<String, ToolError> {
        self.trace.record("enable_roaming", serde_json::json!({"customer_id": customer_id, "line_id": line_id}));
        let k = self.target_line(customer_id, line_id)?;
        if std::mem::replace(&mut self.lines[k].roaming_enabled, true) {
            return Ok("Roaming was already enabled".to_string());
        }
        Ok("Roaming enabled successfully".to_string())
    }

    /// Stops the line from roaming abroad.
    pub fn disable_roaming(&mut self, customer_id: &str, line_id: &str) -> Result<String, ToolError> {
        self.trace.record("disable_roaming", serde_json::json!({"customer_id": customer_id, "line_id": line_id}));
        let k = self.target_line(customer_id, line_id)?;
        if !std::mem::replace(&mut self.lines[k].roaming_enabled, false) {
            return Ok("Roaming was already disabled".to_string());
        }
        Ok("Roaming disabled successfully".to_string())
    }

    /// Hands the customer to a human agent, with a summary of their issue.
    pub fn transfer_to_human_agents(&mut self, summary: &str) -> String {
        self.trace.record("transfer_to_human_agents", serde_json::json!({"summary": summary}));
        "Transfer successful".to_string()
    }

    /// Adds `gb_amount` GB of data to the line for this cycle, charged at the plan's price per GB on the
    /// customer's next bill.
    pub fn refuel_data(&mut self, customer_id: &str, line_id: &str, gb_amount: f64) -> Result<Refuel, ToolError> {
        self.trace.record(
            "refuel_data",
            serde_json::json!({"customer_id": customer_id, "line_id": line_id, "gb_amount": gb_amount}),
        );
        let k = self.target_line(customer_id, line_id)?;
        if gb_amount <= 0.0 {
            return fail("Refuel amount must be positive");
        }
        let price = self.plan(&self.lines[k].plan_id)?.data_refueling_price_per_gb;
        let charge = gb_amount * price;
        self.lines[k].data_refueling_gb += gb_amount;
        let description = format!("Data refueling: {} GB at ${}/GB", repr(gb_amount), repr(price));
        self.apply_one_time_charge(customer_id, charge, &description)?;
        Ok(Refuel {
            message: format!("Successfully added {} GB of data for line {line_id} for ${charge:.2}", repr(gb_amount)),
            new_data_refueling_gb: self.lines[k].data_refueling_gb,
            charge,
        })
    }

    /// Puts a charge (or, negative, a credit) on the customer's draft bill, opening one for next month if there is
    /// none.
    fn apply_one_time_charge(&mut self, customer_id: &str, amount: f64, description: &str) -> Result<(), ToolError> {
        let c = self.customer_index(customer_id)?;
        let mut draft = None;
        for bill_id in &self.customers[c].bill_ids {
            let k = self.bill_index(bill_id)?;
            if self.bills[k].status == BillStatus::Draft {
                draft = Some(k);
                break;
            }
        }
        let k = match draft {
            Some(k) => k,
            None => {
                let start = Date::TODAY.next_month();
                self.new_bills += 1;
                let bill_id = format!("B{:08x}", self.new_bills);
                self.bills.push(Bill {
                    bill_id: bill_id.clone(),
                    customer_id: customer_id.to_string(),
                    period_start: start.to_string(),
                    period_end: start.next_month().plus_days(-1).to_string(),
                    issue_date: start.to_string(),
                    total_due: 0.0,
                    due_date: start.plus_days(14).to_string(),
                    line_items: Vec::new(),
                    status: BillStatus::Draft,
                });
                self.customers[c].bill_ids.push(bill_id);
                self.bills.len() - 1
            }
        };
        let bill = &mut self.bills[k];
        bill.line_items.push(LineItem {
            description: description.to_string(),
            amount,
            date: Date::TODAY.to_string(),
            item_type: if amount < 0.0 { "Credit" } else { "Charge" }.to_string(),
        });
        bill.total_due += amount;
        Ok(())
    }

    // ---- Scene-setting (a task's initialization, not tools) ----

    /// Sets the data a line has used this cycle.
    pub fn set_data_usage(&mut self, customer_id: &str, line_id: &str, data_used_gb: f64) -> Result<String, ToolError> {
        let k = self.target_line(customer_id, line_id)?;
        self.lines[k].data_used_gb = data_used_gb;
        Ok(format!("Data usage set to {} GB for line {line_id}", repr(data_used_gb)))
    }

    /// Suspends an active line over a new overdue bill (last month's plan charge), ending its contract if asked.
    pub fn suspend_line_for_overdue_bill(
        &mut self,
        customer_id: &str,
        line_id: &str,
        new_bill_id: &str,
        contract_ended: bool,
    ) -> Result<String, ToolError> {
        let l = self.line_index(line_id)?;
        if self.lines[l].status != LineStatus::Active {
            return fail("Line must be active to suspend for unpaid bill");
        }
        let amount = self.plan(&self.lines[l].plan_id)?.price_per_month;
        if amount <= 0.0 {
            return fail("Amount must be positive for overdue bill");
        }
        let c = self.customer_index(customer_id)?;
        for bill_id in &self.customers[c].bill_ids {
            if self.bills[self.bill_index(bill_id)?].status == BillStatus::Overdue {
                return fail("Customer already has an overdue bill");
            }
        }
        let last_day = Date::TODAY.first_of_month().plus_days(-1);
        let first_day = last_day.first_of_month();
        self.bills.push(Bill {
            bill_id: new_bill_id.to_string(),
            customer_id: customer_id.to_string(),
            period_start: first_day.to_string(),
            period_end: last_day.to_string(),
            issue_date: first_day.to_string(),
            total_due: amount,
            due_date: first_day.plus_days(14).to_string(),
            line_items: vec![LineItem {
                description: format!("Charge for line {line_id}"),
                amount,
                date: Date::TODAY.to_string(),
                item_type: "Charge".to_string(),
            }],
            status: BillStatus::Overdue,
        });
        self.customers[c].bill_ids.push(new_bill_id.to_string());
        let line = &mut self.lines[l];
        line.status = LineStatus::Suspended;
        line.suspension_start_date = Some(Date::TODAY.to_string());
        if contract_ended {
            line.contract_end_date = Some(last_day.to_string());
        }
        let ended = if contract_ended { "True" } else { "False" };
        Ok(format!("Line {line_id} suspended for unpaid bill {new_bill_id}. Contract ended: {ended}"))
    }

    // ---- A task's checks on the final state ----

    pub fn assert_data_refueling_amount(
        &self,
        customer_id: &str,
        line_id: &str,
        expected_amount: f64,
    ) -> Result<bool, ToolError> {
        let line = &self.lines[self.target_line(customer_id, line_id)?];
        Ok((line.data_refueling_gb - expected_amount).abs() < 1e-6)
    }

    /// `expected_status` as τ² writes it ("Active", "Suspended", ...).
    pub fn assert_line_status(
        &self,
        customer_id: &str,
        line_id: &str,
        expected_status: &str,
    ) -> Result<bool, ToolError> {
        let line = &self.lines[self.target_line(customer_id, line_id)?];
        Ok(serde_json::to_value(line.status).ok().and_then(|v| v.as_str().map(|s| s == expected_status)) == Some(true))
    }

    pub fn assert_overdue_bill_exists(&self, customer_id: &str, overdue_bill_id: &str) -> Result<bool, ToolError> {
        let customer = self.customer(customer_id)?;
        if !customer.bill_ids.iter().any(|b| b == overdue_bill_id) {
            return fail(format!("Overdue bill {overdue_bill_id} not found"));
        }
        if self.bills[self.bill_index(overdue_bill_id)?].status != BillStatus::Overdue {
            return fail(format!("Overdue bill {overdue_bill_id} is not overdue"));
        }
        Ok(true)
    }

    pub fn assert_no_overdue_bill(&self, overdue_bill_id: &str) -> bool {
        match self.bill_index(overdue_bill_id) {
            Ok(k) => self.bills[k].status == BillStatus::Paid,
            Err(_) => true,
        }
    }
}

impl Telecom {
    /// What the phone learns from the carrier, as τ²'s environment syncs them after every call: whether the line
    /// is active, roaming allowed and data left; a paid bill marked paid; the first bill awaiting payment as the
    /// phone's payment request.
    pub fn sync(&mut self, phone: &mut Phone) -> Result<(), ToolError> {
        let Some(phone_number) = phone.surroundings.phone_number.clone() else { return Ok(()) };
        let line = self.line_by_phone(&phone_number)?.clone();
        phone.surroundings.line_active = line.status == LineStatus::Active;
        phone.surroundings.roaming_allowed = line.roaming_enabled;
        let plan = self.plan(&line.plan_id)?;
        phone.surroundings.mobile_data_usage_exceeded =
            line.data_used_gb >= plan.data_limit_gb + line.data_refueling_gb;
        if let Some(request) = &phone.surroundings.payment_request {
            if request.paid {
                let k = self.bill_index(&request.bill_id)?;
                self.bills[k].status = BillStatus::Paid;
                phone.surroundings.payment_request = None;
            }
        }
        if phone.surroundings.payment_request.is_none() {
            let customer = self.customer_by_phone(&phone_number)?;
            if let Some(&k) = self.bills_awaiting_payment(customer)?.first() {
                let bill = &self.bills[k];
                phone.surroundings.payment_request =
                    Some(PaymentRequest { bill_id: bill.bill_id.clone(), amount_due: bill.total_due, paid: false });
            }
        }
        Ok(())
    }

    /// What the benchmark harness reads after a task, as JSON: `{"tool_calls": N, "diff": [], "assertions": [..],
    /// "trace": [..]}` — the agent's tool calls, the task's assertions as the harness evaluated them, and both
    /// sides' calls (τ²'s `ACTION` basis looks in both). Telecom's tasks are scored on assertions, not on the
    /// records, so nothing is compared.
    pub fn verdict(&self, phone: &Phone, assertions: &[bool]) -> String {
        let mut trace = self.trace.clone();
        trace.0.extend(phone.trace().iter().cloned());
        serde_json::json!({"tool_calls": self.trace.len(), "diff": [], "assertions": assertions, "trace": trace.0})
            .to_string()
    }
}
