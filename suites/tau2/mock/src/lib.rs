//! τ²-bench's mock domain as a Lacuna host: a small task tracker (users and their tasks). `Mock`'s methods are the
//! agent's tools, ported from τ²'s mock toolkit; `assert_*` are the task's checks on the final state, which the
//! harness calls (not tools). As for retail, `lacuna bench suites/tau2-mock.toml` opens a session per task, loads
//! the store in the first turn and reads `Mock::verdict` in the last.

use serde::Deserialize;

#[path = "../../support.rs"]
mod support;

pub use store::Mock;
pub use support::ToolError;

/// A tracked task. `status` is "pending" or "completed".
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Task {
    pub task_id: String,
    pub title: String,
    pub description: Option<String>,
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct User {
    pub user_id: String,
    pub name: String,
    /// Task ids.
    pub tasks: Vec<String>,
}

mod store {
    use std::collections::BTreeMap;

    use super::support::{differ, read_db, verdict, Trace};
    use super::{Task, ToolError, User};

    /// The tracker: its users and tasks, reached only through these methods.
    #[derive(Debug, Clone)]
    pub struct Mock {
        tasks: BTreeMap<String, Task>,
        users: BTreeMap<String, User>,
        /// The tools called, in order.
        trace: Trace,
    }

    impl Mock {
        /// Reads τ²'s mock `db.json`.
        pub fn load(path: &str) -> Result<Mock, String> {
            #[derive(serde::Deserialize)]
            struct Db {
                tasks: BTreeMap<String, Task>,
                users: BTreeMap<String, User>,
            }
            let db: Db = read_db(path)?;
            Ok(Mock { tasks: db.tasks, users: db.users, trace: Trace::default() })
        }

        /// How many tools were called.
        pub fn tool_calls(&self) -> usize {
            self.trace.len()
        }

        /// The records (tasks, users) whose contents differ from `expected`'s.
        pub fn diff(&self, expected: &Mock) -> Vec<String> {
            let mut out = Vec::new();
            differ("task", &self.tasks, &expected.tasks, &mut out);
            differ("user", &self.users, &expected.users, &mut out);
            out
        }

        /// What the benchmark harness reads after a task (see `json::verdict`).
        pub fn verdict(&self, expected: &Mock, assertions: &[bool]) -> String {
            verdict(&self.trace, &self.diff(expected), assertions)
        }

        /// Creates a pending task for a user; its id is `task_N`, N one more than the number of tasks.
        pub fn create_task(
            &mut self,
            user_id: &str,
            title: &str,
            description: Option<&str>,
        ) -> Result<Task, ToolError> {
            self.trace.record(
                "create_task",
                serde_json::json!({"user_id": user_id, "title": title, "description": description}),
            );
            if !self.users.contains_key(user_id) {
                return Err(ToolError(format!("User {user_id} not found")));
            }
            let task_id = format!("task_{}", self.tasks.len() + 1);
            let task = Task {
                task_id: task_id.clone(),
                title: title.to_string(),
                description: description.map(str::to_string),
                status: "pending".to_string(),
            };
            self.tasks.insert(task_id.clone(), task.clone());
            if let Some(user) = self.users.get_mut(user_id) {
                user.tasks.push(task_id);
            }
            Ok(task)
        }

        /// Every user.
        pub fn get_users(&mut self) -> Vec<User> {
            self.trace.record("get_users", serde_json::json!({}));
            self.users.values().cloned().collect()
        }

        /// Sets a task's status: "pending" or "completed".
        pub fn update_task_status(&mut self, task_id: &str, status: &str) -> Result<Task, ToolError> {
            self.trace.record("update_task_status", serde_json::json!({"task_id": task_id, "status": status}));
            if status != "pending" && status != "completed" {
                return Err(ToolError(format!("Invalid status {status}: \"pending\" or \"completed\"")));
            }
            match self.tasks.get_mut(task_id) {
                Some(task) => {
                    task.status = status.to_string();
                    Ok(task.clone())
                }
                None => Err(ToolError(format!("Task {task_id} not found"))),
            }
        }

        /// Hands the user to a human agent, with a summary of their issue.
        pub fn transfer_to_human_agents(&mut self, summary: &str) -> String {
            self.trace.record("transfer_to_human_agents", serde_json::json!({"summary": summary}));
            "Transfer successful".to_string()
        }

        /// A task's check: whether the user has this many tasks (false for an unknown user).
        pub fn assert_number_of_tasks(&self, user_id: &str, expected_number: usize) -> bool {
            self.users.get(user_id).is_some_and(|u| u.tasks.len() == expected_number)
        }

        /// A task's check: whether the task has this status (false for an unknown task).
        pub fn assert_task_status(&self, task_id: &str, expected_status: &str) -> bool {
            self.tasks.get(task_id).is_some_and(|t| t.status == expected_status)
        }
    }
}
