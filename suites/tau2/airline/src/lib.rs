//! τ²-bench's airline domain as a Lacuna host: flights, users and reservations, and `Airline`, the reservation
//! system itself, whose methods are the agent's tools (ported from τ²'s airline toolkit: what each checks, changes
//! and returns, and its error texts). `lacuna bench suites/tau2-airline.toml` opens a session on this crate per
//! task: the first turn loads the database (`let mut airline = Airline::load(..)`), each user message is a turn the
//! agent writes against `airline`, and the last turn compares the database with the one the task's expected
//! actions leave (`Airline::verdict`).
//!
//! τ²'s semantics kept as they are, quirks included: the clock reads 2024-05-15 15:00:00; new reservations are
//! HATHAT, HATHAU, HATHAV and new certificates certificate_3221322..4; cancelling refunds every payment as a
//! negative payment and releases no seats (a cancelled reservation can be cancelled again); changing flights
//! books no seats either; a certificate is used up whole; a gift card's balance is a float that integer prices
//! are taken from; one-stop search looks for the second leg on `2024-05-{day + 1}` (no zero padding) when the
//! first arrives the next day.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[path = "../../python.rs"]
mod python;
#[path = "../../support.rs"]
mod support;

pub use store::Airline;
pub use support::ToolError;

/// A cabin class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cabin {
    BasicEconomy,
    Economy,
    Business,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlightType {
    OneWay,
    RoundTrip,
}

/// Whether a reservation has travel insurance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Insurance {
    Yes,
    No,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Membership {
    Gold,
    Silver,
    Regular,
}

/// A number per cabin class: seats left, or prices in dollars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub struct PerCabin {
    pub basic_economy: i64,
    pub economy: i64,
    pub business: i64,
}

impl PerCabin {
    pub fn get(&self, cabin: Cabin) -> i64 {
        match cabin {
            Cabin::BasicEconomy => self.basic_economy,
            Cabin::Economy => self.economy,
            Cabin::Business => self.business,
        }
    }

    fn get_mut(&mut self, cabin: Cabin) -> &mut i64 {
        match cabin {
            Cabin::BasicEconomy => &mut self.basic_economy,
            Cabin::Economy => &mut self.economy,
            Cabin::Business => &mut self.business,
        }
    }
}

/// A flight on one date. Times are EST, "YYYY-MM-DDTHH:MM:SS".
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "status")]
pub enum FlightDate {
    #[serde(rename = "available")]
    Available { available_seats: PerCabin, prices: PerCabin },
    #[serde(rename = "landed")]
    Landed { actual_departure_time_est: String, actual_arrival_time_est: String },
    #[serde(rename = "cancelled")]
    Cancelled,
    #[serde(rename = "delayed")]
    Delayed { estimated_departure_time_est: String, estimated_arrival_time_est: String },
    #[serde(rename = "flying")]
    Flying { actual_departure_time_est: String, estimated_arrival_time_est: String },
    #[serde(rename = "on time")]
    OnTime { estimated_departure_time_est: String, estimated_arrival_time_est: String },
}

impl FlightDate {
    /// "available", "landed", "cancelled", "delayed", "flying" or "on time".
    pub fn status(&self) -> &'static str {
        match self {
            FlightDate::Available { .. } => "available",
            FlightDate::Landed { .. } => "landed",
            FlightDate::Cancelled => "cancelled",
            FlightDate::Delayed { .. } => "delayed",
            FlightDate::Flying { .. } => "flying",
            FlightDate::OnTime { .. } => "on time",
        }
    }
}

/// A scheduled flight. Times are EST, "HH:MM:SS", an arrival the next day ending in "+1".
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Flight {
    pub flight_number: String,
    pub origin: String,
    pub destination: String,
    pub scheduled_departure_time_est: String,
    pub scheduled_arrival_time_est: String,
    /// By date, "YYYY-MM-DD".
    pub dates: BTreeMap<String, FlightDate>,
}

/// A bookable flight on a date, as the searches give it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DirectFlight {
    pub flight_number: String,
    pub origin: String,
    pub destination: String,
    /// Always "available".
    pub status: String,
    pub scheduled_departure_time_est: String,
    pub scheduled_arrival_time_est: String,
    /// Set by the one-stop search only.
    pub date: Option<String>,
    pub available_seats: PerCabin,
    pub prices: PerCabin,
}

/// Which flight on which date, as a booking or a change names it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct FlightInfo {
    /// Such as "HAT001".
    pub flight_number: String,
    /// "YYYY-MM-DD".
    pub date: String,
}

impl FlightInfo {
    pub fn new(flight_number: &str, date: &str) -> FlightInfo {
        FlightInfo { flight_number: flight_number.to_string(), date: date.to_string() }
    }
}

/// A flight of a reservation, at the price paid per passenger.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct ReservationFlight {
    pub origin: String,
    pub destination: String,
    pub flight_number: String,
    pub date: String,
    pub price: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Passenger {
    pub first_name: String,
    pub last_name: String,
    /// Date of birth, "YYYY-MM-DD".
    pub dob: String,
}

impl Passenger {
    pub fn new(first_name: &str, last_name: &str, dob: &str) -> Passenger {
        Passenger { first_name: first_name.to_string(), last_name: last_name.to_string(), dob: dob.to_string() }
    }
}

/// A payment (or, negative, a refund) with one of the user's payment methods, in dollars.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Payment {
    /// The payment method's id, such as "credit_card_7815826", "gift_card_7815826", "certificate_7815826".
    pub payment_id: String,
    pub amount: i64,
}

impl Payment {
    pub fn new(payment_id: &str, amount: i64) -> Payment {
        Payment { payment_id: payment_id.to_string(), amount }
    }
}

/// How a user pays. Gift cards and certificates have an amount left; a certificate is used up whole.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum PaymentMethod {
    CreditCard { id: String, brand: String, last_four: String },
    GiftCard { id: String, amount: f64 },
    Certificate { id: String, amount: f64 },
}

impl PaymentMethod {
    pub fn id(&self) -> &str {
        match self {
            PaymentMethod::CreditCard { id, .. }
            | PaymentMethod::GiftCard { id, .. }
            | PaymentMethod::Certificate { id, .. } => id,
        }
    }

    /// "credit_card", "gift_card" or "certificate".
    pub fn source(&self) -> &'static str {
        match self {
            PaymentMethod::CreditCard { .. } => "credit_card",
            PaymentMethod::GiftCard { .. } => "gift_card",
            PaymentMethod::Certificate { .. } => "certificate",
        }
    }

    /// What is left on a gift card or certificate.
    pub fn amount(&self) -> Option<f64> {
        match self {
            PaymentMethod::CreditCard { .. } => None,
            PaymentMethod::GiftCard { amount, .. } | PaymentMethod::Certificate { amount, .. } => Some(*amount),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Name {
    pub first_name: String,
    pub last_name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct Address {
    pub address1: String,
    pub address2: Option<String>,
    pub city: String,
    pub country: String,
    pub state: String,
    pub zip: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct User {
    pub user_id: String,
    pub name: Name,
    pub address: Address,
    pub email: String,
    pub dob: String,
    /// By payment method id.
    pub payment_methods: BTreeMap<String, PaymentMethod>,
    pub saved_passengers: Vec<Passenger>,
    pub membership: Membership,
    /// Reservation ids, such as "8JX2WO".
    pub reservations: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Reservation {
    pub reservation_id: String,
    pub user_id: String,
    pub origin: String,
    pub destination: String,
    pub flight_type: FlightType,
    pub cabin: Cabin,
    pub flights: Vec<ReservationFlight>,
    pub passengers: Vec<Passenger>,
    pub payment_history: Vec<Payment>,
    /// "YYYY-MM-DDTHH:MM:SS".
    pub created_at: String,
    pub total_baggages: i64,
    pub nonfree_baggages: i64,
    pub insurance: Insurance,
    /// `Some("cancelled")` once cancelled.
    #[serde(default)]
    pub status: Option<String>,
}

/// An airport the airline flies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AirportCode {
    pub iata: String,
    pub city: String,
}

mod store;
