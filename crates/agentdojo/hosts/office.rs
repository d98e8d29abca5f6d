// Spliced into the travel and workspace hosts: AgentDojo's calendar and email clients and the date-times they keep,
// ported. Python's `datetime.now()` (a sent email's timestamp, a file's last change) is a fixed clock here, `NOW`, so that two runs of
// one reply leave equal environments; `list(set(participants))` (an order Python does not fix) keeps the order of
// first appearance.

/// A naive date-time as Python's `datetime.datetime`, to the second.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime {
    /// Seconds since 1970-01-01 00:00:00.
    secs: i64,
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 }, m, d)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Digits `text[at..at + n]` as a number, when they are all ASCII digits.
fn digits(text: &str, at: usize, n: usize) -> Option<i64> {
    let part = text.get(at..at + n)?;
    part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok())?
}

impl DateTime {
    /// Python's `datetime(y, mo, d, h, mi, s)`: its range checks, in its order, with its messages.
    fn from_parts(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> Result<DateTime, String> {
        if !(1..=9999).contains(&y) {
            return Err(format!("year {y} is out of range"));
        }
        if !(1..=12).contains(&mo) {
            return Err("month must be in 1..12".to_string());
        }
        if d < 1 || d > days_in_month(y, mo) {
            return Err("day is out of range for month".to_string());
        }
        for (value, name, top) in [(h, "hour", 23), (mi, "minute", 59), (s, "second", 59)] {
            if !(0..=top).contains(&value) {
                return Err(format!("{name} must be in 0..{top}"));
            }
        }
        Ok(DateTime { secs: days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s })
    }

    fn parts(self) -> (i64, i64, i64, i64, i64, i64) {
        let (y, m, d) = civil_from_days(self.secs.div_euclid(86400));
        let t = self.secs.rem_euclid(86400);
        (y, m, d, t / 3600, t / 60 % 60, t % 60)
    }

    /// Python 3.11's `datetime.fromisoformat` for naive date-times to the second: a date `YYYY-MM-DD` or
    /// `YYYYMMDD`, optionally followed by any one separator character and `HH`, `HH:MM`, `HH:MM:SS` (or `HHMM`,
    /// `HHMMSS`). Python also reads fractions of a second, time zones and ISO week dates; this port refuses those
    /// with a message that says so (a snippet's date with a time zone would make AgentDojo's own checks raise
    /// when they compare it with the data's naive ones).
    pub fn from_iso(text: &str) -> Result<DateTime, String> {
        let bad = || format!("Invalid isoformat string: '{text}'");
        let unsupported =
            |what: &str| format!("{what} are not supported here (a naive date-time to the second): '{text}'");
        let (date, rest) = if text.get(4..5) == Some("-") {
            (text.get(..10).ok_or_else(bad)?, &text[10.min(text.len())..])
        } else {
            (text.get(..8).ok_or_else(bad)?, &text[8.min(text.len())..])
        };
        let (y, mo, d) = match date.len() {
            10 if &date[7..8] == "-" => (digits(date, 0, 4), digits(date, 5, 2), digits(date, 8, 2)),
            8 => (digits(date, 0, 4), digits(date, 4, 2), digits(date, 6, 2)),
            _ => return Err(bad()),
        };
        let (Some(y), Some(mo), Some(d)) = (y, mo, d) else { return Err(bad()) };
        let mut chars = rest.chars();
        let (h, mi, s) = match chars.next() {
            None => (0, 0, 0),
            Some(c) if c == 'W' || c.is_ascii_digit() => return Err(bad()),
            Some(_) => {
                let time = chars.as_str();
                let (clock, zone) = match time.find(['Z', '+', '-']) {
                    Some(at) => (&time[..at], Some(&time[at..])),
                    None => (time, None),
                };
                let (clock, fraction) = match clock.find(['.', ',']) {
                    Some(at) => (&clock[..at], Some(&clock[at..])),
                    None => (clock, None),
                };
                let fields: Vec<&str> = if clock.contains(':') {
                    clock.split(':').collect()
                } else {
                    (0..clock.len()).step_by(2).filter_map(|i| clock.get(i..i + 2)).collect()
                };
                let ok = (1..=3).contains(&fields.len())
                    && fields.iter().all(|f| f.len() == 2 && f.bytes().all(|b| b.is_ascii_digit()))
                    && (clock.contains(':') || clock.len() % 2 == 0);
                if !ok {
                    return Err(bad());
                }
                if zone.is_some() {
                    return Err(unsupported("time zones"));
                }
                if fraction.is_some() {
                    return Err(unsupported("fractions of a second"));
                }
                let n = |i: usize| fields.get(i).map_or(0, |f| f.parse::<i64>().unwrap_or(0));
                (n(0), n(1), n(2))
            }
        };
        DateTime::from_parts(y, mo, d, h, mi, s)
    }

    /// Python's `datetime.strptime(text, "%Y-%m-%d %H:%M")` (`with_time`) or `strptime(text, "%Y-%m-%d")`: CPython
    /// matches the text against the format's regular expression from the start (`%Y` four digits; `%m`, `%d`,
    /// `%H`, `%M` one or two, tried longest first; a space in the format any run of whitespace), then builds the
    /// date-time.
    pub fn strptime(text: &str, with_time: bool) -> Result<DateTime, String> {
        use Piece::{Alt, Lit, Space};
        let format = if with_time { "%Y-%m-%d %H:%M" } else { "%Y-%m-%d" };
        const YEAR: &[&str] = &["DDDD"];
        const MONTH: &[&str] = &["1[0-2]", "0[1-9]", "[1-9]"];
        const DAY: &[&str] = &["3[01]", "[12]D", "0[1-9]", "[1-9]", " [1-9]"];
        const HOUR: &[&str] = &["2[0-3]", "[0-1]D", "D"];
        const MINUTE: &[&str] = &["[0-5]D", "D"];
        let mut pieces = vec![Alt(YEAR), Lit('-'), Alt(MONTH), Lit('-'), Alt(DAY)];
        if with_time {
            pieces.extend([Space, Alt(HOUR), Lit(':'), Alt(MINUTE)]);
        }
        let mut fields = Vec::new();
        let Some(end) = match_pieces(&pieces, text.as_bytes(), 0, &mut fields) else {
            return Err(format!("time data '{text}' does not match format '{format}'"));
        };
        if end < text.len() {
            return Err(format!("unconverted data remains: {}", &text[end..]));
        }
        let n = |i: usize| fields.get(i).copied().unwrap_or(0);
        DateTime::from_parts(n(0), n(1), n(2), n(3), n(4), 0)
    }

    pub fn plus_seconds(self, secs: i64) -> DateTime {
        DateTime { secs: self.secs + secs }
    }

    /// `date().isoformat()`: `YYYY-MM-DD`.
    pub fn date_iso(self) -> String {
        let (y, m, d, ..) = self.parts();
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// `time().isoformat()`: `HH:MM:SS`.
    pub fn time_iso(self) -> String {
        let (.., h, mi, s) = self.parts();
        format!("{h:02}:{mi:02}:{s:02}")
    }

    /// `strftime("%m-%d")`.
    pub fn month_day(self) -> String {
        let (_, m, d, ..) = self.parts();
        format!("{m:02}-{d:02}")
    }

    /// `strftime("%H:%M")`.
    pub fn hour_minute(self) -> String {
        let (.., h, mi, _) = self.parts();
        format!("{h:02}:{mi:02}")
    }
}

/// A piece of a `strptime` format's regular expression, as CPython's `_strptime` writes it.
#[derive(Clone, Copy)]
enum Piece {
    /// Alternatives tried in order (see [`match_pattern`]).
    Alt(&'static [&'static str]),
    Lit(char),
    /// One or more whitespace characters (a space in the format).
    Space,
}

/// The end of `pattern` matched at `text[at..]`, if it matches: `D` is a digit, `[..]` a class of characters and
/// ranges (`[01]`, `[1-9]`), anything else itself.
fn match_pattern(pattern: &str, text: &[u8], at: usize) -> Option<usize> {
    let p = pattern.as_bytes();
    let (mut i, mut pos) = (0, at);
    while i < p.len() {
        let c = *text.get(pos)?;
        match p[i] {
            b'D' => {
                if !c.is_ascii_digit() {
                    return None;
                }
                i += 1;
            }
            b'[' => {
                let close = i + p[i..].iter().position(|b| *b == b']')?;
                let class = &p[i + 1..close];
                let mut k = 0;
                let mut matched = false;
                while k < class.len() {
                    if k + 2 < class.len() && class[k + 1] == b'-' {
                        matched |= (class[k]..=class[k + 2]).contains(&c);
                        k += 3;
                    } else {
                        matched |= class[k] == c;
                        k += 1;
                    }
                }
                if !matched {
                    return None;
                }
                i = close + 1;
            }
            literal => {
                if literal != c {
                    return None;
                }
                i += 1;
            }
        }
        pos += 1;
    }
    Some(pos)
}

/// Matches `pieces` from `text[at..]` as a backtracking regular expression does, pushing each alternative's number
/// to `fields`: the end of the match.
fn match_pieces(pieces: &[Piece], text: &[u8], at: usize, fields: &mut Vec<i64>) -> Option<usize> {
    let Some((first, rest)) = pieces.split_first() else { return Some(at) };
    match *first {
        Piece::Lit(c) => {
            if text.get(at) != Some(&(c as u8)) {
                return None;
            }
            match_pieces(rest, text, at + 1, fields)
        }
        Piece::Space => {
            let mut end = at;
            while text.get(end).is_some_and(|b| b.is_ascii_whitespace()) {
                end += 1;
            }
            (at + 1..=end).rev().find_map(|stop| match_pieces(rest, text, stop, fields))
        }
        Piece::Alt(alternatives) => {
            for pattern in alternatives {
                let Some(end) = match_pattern(pattern, text, at) else { continue };
                let value = std::str::from_utf8(&text[at..end]).ok()?.trim().parse::<i64>().ok()?;
                fields.push(value);
                if let Some(done) = match_pieces(rest, text, end, fields) {
                    return Some(done);
                }
                fields.pop();
            }
            None
        }
    }
}

/// Python's `str(datetime)`: `YYYY-MM-DD HH:MM:SS`.
impl std::fmt::Display for DateTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.date_iso(), self.time_iso())
    }
}

impl std::fmt::Debug for DateTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// The fixed clock a sent email or a changed file is stamped with (see the top of this file): later than every date
/// in the suites' data, as Python's clock is.
pub const NOW: &str = "2025-01-01T00:00:00";

/// The environment's date-times are ISO text (`2024-05-15T10:00:00`, or with a space for the `T`).
impl<'de> serde::Deserialize<'de> for DateTime {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<DateTime, D::Error> {
        let text = String::deserialize(deserializer)?;
        DateTime::from_iso(&text).map_err(serde::de::Error::custom)
    }
}

/// A date-time the port's code names; a bad one is a bug in the port.
pub fn dt(text: &str) -> DateTime {
    DateTime::from_iso(text).unwrap_or_else(|e| panic!("the suite's data: {e}"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
pub enum EventStatus {
    Confirmed,
    Canceled,
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct CalendarEvent {
    pub id_: String,
    pub title: String,
    pub description: String,
    pub start_time: DateTime,
    pub end_time: DateTime,
    pub location: Option<String>,
    pub participants: Vec<String>,
    pub all_day: bool,
    pub status: EventStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
pub enum EmailStatus {
    Sent,
    Received,
    Draft,
}

/// What an email carries: a cloud-drive file's id, or a calendar event.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub enum Attachment {
    File(String),
    Event(CalendarEvent),
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Email {
    pub id_: String,
    pub sender: String,
    pub recipients: Vec<String>,
    pub cc: Vec<String>,
    pub bcc: Vec<String>,
    pub subject: String,
    pub body: String,
    pub status: EmailStatus,
    pub read: bool,
    pub timestamp: DateTime,
    pub attachments: Vec<Attachment>,
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct EmailContact {
    pub email: String,
    pub name: String,
}

/// The next id of a map keyed by decimal ids: the largest plus one.
fn next_id<'a>(ids: impl Iterator<Item = &'a String>) -> String {
    (ids.filter_map(|id| id.parse::<i64>().ok()).max().unwrap_or(0) + 1).to_string()
}

/// AgentDojo's `Calendar`: events by id, in insertion order.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Calendar {
    pub current_day: String,
    pub account_email: String,
    pub events: Vec<CalendarEvent>,
}

impl Calendar {
    pub fn next_id(&self) -> String {
        next_id(self.events.iter().map(|e| &e.id_))
    }

    pub fn event(&self, id: &str) -> Option<&CalendarEvent> {
        self.events.iter().find(|e| e.id_ == id)
    }

    fn event_mut(&mut self, id: &str) -> Result<&mut CalendarEvent, String> {
        self.events.iter_mut().find(|e| e.id_ == id).ok_or_else(|| format!("Event with ID '{id}' not found."))
    }

    fn by_day(&self, day: &str) -> Vec<CalendarEvent> {
        self.events.iter().filter(|e| e.start_time.date_iso() == day).cloned().collect()
    }

    pub fn get_current_day(&self) -> String {
        self.current_day.clone()
    }

    pub fn get_day_calendar_events(&self, day: &str) -> Result<Vec<CalendarEvent>, String> {
        let day = DateTime::strptime(day, false)?;
        Ok(self.by_day(&day.date_iso()))
    }

    /// `Calendar.search_events`: the query in the title or the description, case-insensitively, on `day` (ISO) if
    /// given (no error when none match).
    pub fn search(&self, query: &str, day: Option<&str>) -> Vec<CalendarEvent> {
        let events = match day {
            Some(d) => self.by_day(d),
            None => self.events.clone(),
        };
        let q = query.to_lowercase();
        events
            .into_iter()
            .filter(|e| e.title.to_lowercase().contains(&q) || e.description.to_lowercase().contains(&q))
            .collect()
    }

    pub fn search_calendar_events(&self, query: &str, date: Option<&str>) -> Result<Vec<CalendarEvent>, String> {
        let day = date.map(|d| DateTime::strptime(d, false).map(DateTime::date_iso)).transpose()?;
        let matches = self.search(query, day.as_deref());
        if matches.is_empty() {
            return Err("No events found. Try with a different query.".to_string());
        }
        Ok(matches)
    }

    /// `create_calendar_event`: the invitation goes to the participants as given plus the account (Python appends
    /// the account to the caller's list before it copies it into the event).
    #[allow(clippy::too_many_arguments)]
    pub fn create_calendar_event(
        &mut self,
        inbox: &mut Inbox,
        title: &str,
        start_time: &str,
        end_time: &str,
        description: &str,
        participants: Option<&[&str]>,
        location: Option<&str>,
    ) -> Result<CalendarEvent, String> {
        let start = DateTime::strptime(start_time, true)?;
        let end = DateTime::strptime(end_time, true)?;
        let mut given: Vec<String> = participants.unwrap_or_default().iter().map(|p| p.to_string()).collect();
        given.push(self.account_email.clone());
        let mut unique: Vec<String> = Vec::new();
        for p in &given {
            if !unique.contains(p) {
                unique.push(p.clone());
            }
        }
        let event = CalendarEvent {
            id_: self.next_id(),
            title: title.to_string(),
            description: description.to_string(),
            start_time: start,
            end_time: end,
            location: location.map(str::to_string),
            participants: unique,
            all_day: false,
            status: EventStatus::Confirmed,
        };
        self.events.push(event.clone());
        inbox.send(
            given,
            &format!("Invitation: {title}"),
            description,
            vec![Attachment::Event(event.clone())],
            vec![],
            vec![],
        );
        Ok(event)
    }

    pub fn cancel_calendar_event(&mut self, inbox: &mut Inbox, event_id: &str) -> Result<String, String> {
        let event = self.event_mut(event_id)?;
        event.status = EventStatus::Canceled;
        let event = event.clone();
        inbox.send(
            event.participants.clone(),
            &format!("Canceled: '{}'", event.title),
            "The event has been canceled.",
            vec![Attachment::Event(event)],
            vec![],
            vec![],
        );
        Ok(format!("Event with ID {event_id} has been canceled and participants have been notified."))
    }

    pub fn reschedule_calendar_event(
        &mut self,
        inbox: &mut Inbox,
        event_id: &str,
        new_start_time: &str,
        new_end_time: Option<&str>,
    ) -> Result<CalendarEvent, String> {
        let new_end = new_end_time.map(|t| DateTime::strptime(t, true)).transpose()?;
        let new_start = DateTime::strptime(new_start_time, true)?;
        let event = self.event_mut(event_id)?;
        let old_start = event.start_time;
        event.start_time = new_start;
        event.end_time = match new_end {
            Some(end) => end,
            None => new_start.plus_seconds(event.end_time.secs - old_start.secs),
        };
        let body = format!(
            "The event has been rescheduled. It will start on  {} at {} and end on {} at {}.",
            event.start_time.date_iso(),
            event.start_time.time_iso(),
            event.end_time.date_iso(),
            event.end_time.time_iso()
        );
        let event = event.clone();
        // The subject is not an f-string in AgentDojo: it reads `{event.title}` literally.
        inbox.send(
            event.participants.clone(),
            "Rescheduled: '{event.title}'",
            &body,
            vec![Attachment::Event(event.clone())],
            vec![],
            vec![],
        );
        Ok(event)
    }

    pub fn add_calendar_event_participants(
        &mut self,
        event_id: &str,
        participants: &[&str],
    ) -> Result<CalendarEvent, String> {
        let event = self.event_mut(event_id)?;
        event.participants.extend(participants.iter().map(|p| p.to_string()));
        Ok(event.clone())
    }
}

/// AgentDojo's `Inbox`: emails by id in insertion order, the contact list built from the initial emails, and the
/// trash. The environment holds its account and emails ([`InboxData`]); the rest is derived as AgentDojo does.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(from = "InboxData")]
pub struct Inbox {
    pub account_email: String,
    pub emails: Vec<Email>,
    pub contact_list: Vec<EmailContact>,
    pub trash: Vec<Email>,
}

/// An inbox as the environment holds it.
#[derive(serde::Deserialize)]
pub struct InboxData {
    account_email: String,
    emails: Vec<Email>,
}

impl From<InboxData> for Inbox {
    fn from(data: InboxData) -> Inbox {
        Inbox::new(&data.account_email, data.emails)
    }
}

impl Inbox {
    /// The inbox of `emails`, with the contact list AgentDojo derives from them (recipients, sender, cc, bcc, each
    /// address once, named by its local part with dots as spaces, title-cased).
    pub fn new(account_email: &str, emails: Vec<Email>) -> Inbox {
        let mut contact_list: Vec<EmailContact> = Vec::new();
        for email in &emails {
            let addresses = email.recipients.iter().chain([&email.sender]).chain(&email.cc).chain(&email.bcc);
            for address in addresses {
                if contact_list.iter().any(|c| &c.email == address) {
                    continue;
                }
                let local = address.split('@').next().unwrap_or_default().replace('.', " ");
                contact_list.push(EmailContact { email: address.clone(), name: title_case(&local) });
            }
        }
        Inbox { account_email: account_email.to_string(), emails, contact_list, trash: Vec::new() }
    }

    pub fn next_id(&self) -> String {
        next_id(self.emails.iter().map(|e| &e.id_))
    }

    fn send(
        &mut self,
        recipients: Vec<String>,
        subject: &str,
        body: &str,
        attachments: Vec<Attachment>,
        cc: Vec<String>,
        bcc: Vec<String>,
    ) -> Email {
        let email = Email {
            id_: self.next_id(),
            sender: self.account_email.clone(),
            recipients,
            cc,
            bcc,
            subject: subject.to_string(),
            body: body.to_string(),
            status: EmailStatus::Sent,
            read: true,
            timestamp: dt(NOW),
            attachments,
        };
        self.emails.push(email.clone());
        email
    }

    pub fn send_email(
        &mut self,
        recipients: &[&str],
        subject: &str,
        body: &str,
        attachments: Option<&[Attachment]>,
        cc: Option<&[&str]>,
        bcc: Option<&[&str]>,
    ) -> Email {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        self.send(
            owned(recipients),
            subject,
            body,
            attachments.map(<[Attachment]>::to_vec).unwrap_or_default(),
            owned(cc.unwrap_or_default()),
            owned(bcc.unwrap_or_default()),
        )
    }

    /// `Inbox.search_emails`: the query in the subject or the body, case-insensitively (no error when none match).
    pub fn search(&self, query: &str, sender: Option<&str>) -> Vec<Email> {
        let q = query.to_lowercase();
        self.emails
            .iter()
            .filter(|e| sender.is_none_or(|s| e.sender.to_lowercase() == s.to_lowercase()))
            .filter(|e| e.subject.to_lowercase().contains(&q) || e.body.to_lowercase().contains(&q))
            .cloned()
            .collect()
    }

    pub fn search_emails(&self, query: &str, sender: Option<&str>) -> Result<Vec<Email>, String> {
        let matches = self.search(query, sender);
        if matches.is_empty() {
            return Err("No emails found. Try with a different query.".to_string());
        }
        Ok(matches)
    }

    pub fn delete_email(&mut self, email_id: &str) -> Result<String, String> {
        let at = self.emails.iter().position(|e| e.id_ == email_id);
        let at = at.ok_or_else(|| format!("Email with ID '{email_id}' not found."))?;
        let email = self.emails.remove(at);
        self.trash.push(email);
        Ok(format!("Email with id {email_id} deleted successfully."))
    }

    pub fn get_unread_emails(&mut self) -> Vec<Email> {
        let mut unread = Vec::new();
        for e in self.emails.iter_mut().filter(|e| !e.read) {
            e.read = true;
            unread.push(e.clone());
        }
        unread
    }

    fn with_status(&self, status: EmailStatus) -> Vec<Email> {
        self.emails.iter().filter(|e| e.status == status).cloned().collect()
    }

    pub fn get_sent_emails(&self) -> Vec<Email> {
        self.with_status(EmailStatus::Sent)
    }

    pub fn get_received_emails(&self) -> Vec<Email> {
        self.with_status(EmailStatus::Received)
    }

    pub fn get_draft_emails(&self) -> Vec<Email> {
        self.with_status(EmailStatus::Draft)
    }

    pub fn search_contacts_by_name(&self, query: &str) -> Result<Vec<EmailContact>, String> {
        let q = query.to_lowercase();
        let found: Vec<EmailContact> =
            self.contact_list.iter().filter(|c| c.name.to_lowercase().contains(&q)).cloned().collect();
        if found.is_empty() {
            return Err(format!("Contact with name '{query}' not found."));
        }
        Ok(found)
    }

    pub fn search_contacts_by_email(&self, query: &str) -> Result<Vec<EmailContact>, String> {
        let q = query.to_lowercase();
        let found: Vec<EmailContact> =
            self.contact_list.iter().filter(|c| c.email.to_lowercase().contains(&q)).cloned().collect();
        if found.is_empty() {
            return Err(format!("Contact with email '{query}' not found."));
        }
        Ok(found)
    }
}

/// Python's `str.title()`: each run of letters starts upper-case, the rest lower.
fn title_case(text: &str) -> String {
    let mut out = String::new();
    let mut in_word = false;
    for c in text.chars() {
        if c.is_alphabetic() {
            if in_word {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            in_word = true;
        } else {
            out.push(c);
            in_word = false;
        }
    }
    out
}
