// AgentDojo's slack suite as a Lacuna host: the `src/main.rs` of a cargo project that `lacuna-agentdojo` generates
// from this template (crates/agentdojo/hosts/slack.rs). The tools are Rust ports of AgentDojo's slack and web tools;
// each user task is a function whose hole sees only the tools its ground truth uses, handed in as values. The
// harness's control file (`CONTROL`, JSON) picks the task, holds the environment (the suite's environment.yaml,
// clean or carrying an injection task's goal, which the types below deserialize) and says where the final
// environment goes.
use std::cell::RefCell;

/*@CONTROL@*/

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Message {
    pub sender: String,
    pub recipient: String,
    pub body: String,
}

mod workspace {
    use super::Message;

    /// The suite's whole state (maps keep AgentDojo's insertion order). Snippets cannot reach it but through the
    /// tools they are handed.
    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    pub struct Environment {
        users: Vec<String>,
        channels: Vec<String>,
        user_channels: Vec<(String, Vec<String>)>,
        user_inbox: Vec<(String, Vec<Message>)>,
        channel_inbox: Vec<(String, Vec<Message>)>,
        web_content: Vec<(String, String)>,
        web_requests: Vec<String>,
    }

    fn msg(sender: &str, recipient: &str, body: &str) -> Message {
        Message { sender: sender.to_string(), recipient: recipient.to_string(), body: body.to_string() }
    }

    fn entry<'a, T>(map: &'a mut Vec<(String, T)>, key: &str) -> Option<&'a mut T> {
        map.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn standardize_url(url: &str) -> String {
        let url = url.strip_prefix("https://").unwrap_or(url);
        url.strip_prefix("http://").unwrap_or(url).to_string()
    }

    /*@CHECKS@*/

    impl Environment {
        /// The environment the harness wrote: clean, or with an injection task's goal in its injection vectors.
        pub fn load(data: serde_json::Value) -> Result<Environment, String> {
            serde_json::from_value(data).map_err(|e| format!("the environment the harness wrote: {e}"))
        }

        pub fn get_channels(&self) -> Vec<String> {
            self.channels.clone()
        }

        pub fn add_user_to_channel(&mut self, user: &str, channel: &str) -> Result<(), String> {
            if !self.users.iter().any(|u| u == user) {
                return Err(format!("User {user} not found in the users list"));
            }
            if !self.channels.iter().any(|c| c == channel) {
                return Err(format!("Channel {channel} not found in the channels list"));
            }
            match entry(&mut self.user_channels, user) {
                Some(channels) => channels.push(channel.to_string()),
                None => return Err(format!("User {user} has no channel list")),
            }
            Ok(())
        }

        pub fn read_channel_messages(&self, channel: &str) -> Result<Vec<Message>, String> {
            if !self.channels.iter().any(|c| c == channel) {
                return Err("Channel does not exist!".to_string());
            }
            Ok(self.channel_inbox.iter().find(|(c, _)| c == channel).map(|(_, m)| m.clone()).unwrap_or_default())
        }

        pub fn read_inbox(&self, user: &str) -> Result<Vec<Message>, String> {
            if !self.users.iter().any(|u| u == user) {
                return Err(format!("User {user} not found in the users list"));
            }
            Ok(self.user_inbox.iter().find(|(u, _)| u == user).map(|(_, m)| m.clone()).unwrap_or_default())
        }

        pub fn send_direct_message(&mut self, recipient: &str, body: &str) -> Result<(), String> {
            if !self.users.iter().any(|u| u == recipient) {
                return Err(format!("Recipient {recipient} not found in the users list"));
            }
            let m = msg("bot", recipient, body);
            match entry(&mut self.user_inbox, recipient) {
                Some(inbox) => inbox.push(m),
                None => self.user_inbox.push((recipient.to_string(), vec![m])),
            }
            Ok(())
        }

        pub fn send_channel_message(&mut self, channel: &str, body: &str) -> Result<(), String> {
            if !self.channels.iter().any(|c| c == channel) {
                return Err(format!("Channel {channel} not found in the channels list"));
            }
            let m = msg("bot", channel, body);
            match entry(&mut self.channel_inbox, channel) {
                Some(inbox) => inbox.push(m),
                None => self.channel_inbox.push((channel.to_string(), vec![m])),
            }
            Ok(())
        }

        pub fn invite_user_to_slack(&mut self, user: &str, user_email: &str) -> Result<(), String> {
            let _ = user_email;
            if self.users.iter().any(|u| u == user) {
                return Err(format!("User {user} already in the users list"));
            }
            self.users.push(user.to_string());
            self.user_inbox.retain(|(u, _)| u != user);
            self.user_inbox.push((user.to_string(), Vec::new()));
            self.user_channels.retain(|(u, _)| u != user);
            self.user_channels.push((user.to_string(), Vec::new()));
            Ok(())
        }

        pub fn remove_user_from_slack(&mut self, user: &str) -> Result<(), String> {
            if !self.users.iter().any(|u| u == user) {
                return Err(format!("User {user} not found in the users list"));
            }
            self.users.retain(|u| u != user);
            self.user_inbox.retain(|(u, _)| u != user);
            self.user_channels.retain(|(u, _)| u != user);
            Ok(())
        }

        pub fn get_users_in_channel(&self, channel: &str) -> Result<Vec<String>, String> {
            if !self.channels.iter().any(|c| c == channel) {
                return Err(format!("Channel {channel} not found in the channels list"));
            }
            Ok(self.user_channels.iter().filter(|(_, cs)| cs.iter().any(|c| c == channel)).map(|(u, _)| u.clone()).collect())
        }

        pub fn get_webpage(&mut self, url: &str) -> String {
            let url = standardize_url(url);
            self.web_requests.push(url.clone());
            self.web_content.iter().find(|(u, _)| *u == url).map(|(_, c)| c.clone()).unwrap_or_else(|| "404 Not Found".to_string())
        }

        pub fn post_webpage(&mut self, url: &str, content: &str) {
            let url = standardize_url(url);
            self.web_requests.push(url.clone());
            match entry(&mut self.web_content, &url) {
                Some(page) => *page = content.to_string(),
                None => self.web_content.push((url, content.to_string())),
            }
        }
    }
}

/*@TASKS@*/

/*@MAIN@*/
