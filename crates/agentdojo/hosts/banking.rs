// AgentDojo's banking suite as a Lacuna host: the `src/main.rs` of a cargo project that `lacuna-agentdojo` generates
// from this template (crates/agentdojo/hosts/banking.rs). The tools are Rust ports of AgentDojo's banking,
// file-reader and user-account tools; each user task is a function whose hole sees only the tools its ground truth
// uses, handed in as values. The harness's control file (`CONTROL`, JSON) picks the task, holds the environment
// (the suite's environment.yaml, clean or carrying an injection task's goal, which the types below deserialize)
// and says where the final environment goes.
use std::cell::RefCell;

/*@CONTROL@*/

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Transaction {
    pub id: u32,
    pub sender: String,
    pub recipient: String,
    pub amount: f64,
    pub subject: String,
    pub date: String,
    pub recurring: bool,
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct UserInfo {
    pub first_name: String,
    pub last_name: String,
    pub street: String,
    pub city: String,
}

mod bank {
    use super::{Transaction, UserInfo};

    /// The suite's whole state. Snippets cannot reach it but through the tools they are handed.
    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    pub struct Environment {
        balance: f64,
        iban: String,
        transactions: Vec<Transaction>,
        scheduled_transactions: Vec<Transaction>,
        files: Vec<(String, String)>,
        user: UserInfo,
        password: String,
    }

    fn tx(id: u32, sender: &str, recipient: &str, amount: f64, subject: &str, date: &str, recurring: bool) -> Transaction {
        Transaction {
            id,
            sender: sender.to_string(),
            recipient: recipient.to_string(),
            amount,
            subject: subject.to_string(),
            date: date.to_string(),
            recurring,
        }
    }

    /*@CHECKS@*/

    impl Environment {
        /// The environment the harness wrote: clean, or with an injection task's goal in its injection vectors.
        pub fn load(data: serde_json::Value) -> Result<Environment, String> {
            serde_json::from_value(data).map_err(|e| format!("the environment the harness wrote: {e}"))
        }

        fn next_id(&self) -> u32 {
            self.transactions.iter().chain(&self.scheduled_transactions).map(|t| t.id).max().unwrap_or(0) + 1
        }

        pub fn get_iban(&self) -> String {
            self.iban.clone()
        }

        pub fn get_balance(&self) -> f64 {
            self.balance
        }

        pub fn send_money(&mut self, recipient: &str, amount: f64, subject: &str, date: &str) -> String {
            let t = tx(self.next_id(), &self.iban.clone(), recipient, amount, subject, date, false);
            self.transactions.push(t);
            format!("Transaction to {recipient} for {amount} sent.")
        }

        pub fn schedule_transaction(
            &mut self,
            recipient: &str,
            amount: f64,
            subject: &str,
            date: &str,
            recurring: bool,
        ) -> String {
            let t = tx(self.next_id(), &self.iban.clone(), recipient, amount, subject, date, recurring);
            self.scheduled_transactions.push(t);
            format!("Transaction to {recipient} for {amount} scheduled.")
        }

        /// Like AgentDojo's: an argument that is absent, empty, zero or `false` leaves its field as it was.
        #[allow(clippy::too_many_arguments)]
        pub fn update_scheduled_transaction(
            &mut self,
            id: u32,
            recipient: Option<&str>,
            amount: Option<f64>,
            subject: Option<&str>,
            date: Option<&str>,
            recurring: Option<bool>,
        ) -> Result<String, String> {
            let Some(t) = self.scheduled_transactions.iter_mut().find(|t| t.id == id) else {
                return Err(format!("Transaction with ID {id} not found."));
            };
            if let Some(r) = recipient.filter(|r| !r.is_empty()) {
                t.recipient = r.to_string();
            }
            if let Some(a) = amount.filter(|a| *a != 0.0) {
                t.amount = a;
            }
            if let Some(s) = subject.filter(|s| !s.is_empty()) {
                t.subject = s.to_string();
            }
            if let Some(d) = date.filter(|d| !d.is_empty()) {
                t.date = d.to_string();
            }
            if recurring == Some(true) {
                t.recurring = true;
            }
            Ok(format!("Transaction with ID {id} updated."))
        }

        pub fn get_most_recent_transactions(&self, n: usize) -> Vec<Transaction> {
            // Python's `transactions[-n:]`, where `-0` is the whole list.
            let from = if n == 0 { 0 } else { self.transactions.len().saturating_sub(n) };
            self.transactions[from..].to_vec()
        }

        pub fn get_scheduled_transactions(&self) -> Vec<Transaction> {
            self.scheduled_transactions.clone()
        }

        pub fn read_file(&self, file_path: &str) -> String {
            self.files.iter().find(|(name, _)| name == file_path).map(|(_, text)| text.clone()).unwrap_or_default()
        }

        pub fn get_user_info(&self) -> UserInfo {
            self.user.clone()
        }

        pub fn update_password(&mut self, password: &str) -> String {
            self.password = password.to_string();
            "Password updated.".to_string()
        }

        pub fn update_user_info(
            &mut self,
            first_name: Option<&str>,
            last_name: Option<&str>,
            street: Option<&str>,
            city: Option<&str>,
        ) -> UserInfo {
            for (value, field) in [
                (first_name, &mut self.user.first_name),
                (last_name, &mut self.user.last_name),
                (street, &mut self.user.street),
                (city, &mut self.user.city),
            ] {
                if let Some(v) = value.filter(|v| !v.is_empty()) {
                    *field = v.to_string();
                }
            }
            self.user.clone()
        }
    }
}

/*@TASKS@*/

/*@MAIN@*/
