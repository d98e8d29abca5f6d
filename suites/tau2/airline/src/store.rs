//! `Airline`: the database and the tools that read and change it.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::support::{differ, read_db, verdict, Trace};
use super::{
    AirportCode, Cabin, DirectFlight, Flight, FlightDate, FlightInfo, FlightType, Insurance, Passenger, Payment,
    PaymentMethod, Reservation, ReservationFlight, ToolError, User,
};

fn fail<T>(why: impl Into<String>) -> Result<T, ToolError> {
    Err(ToolError(why.into()))
}

/// The airline's clock.
const NOW: &str = "2024-05-15T15:00:00";
/// The ids new reservations take, in order.
const NEW_RESERVATION_IDS: [&str; 3] = ["HATHAT", "HATHAU", "HATHAV"];
/// The numbers new certificates' ids take, in order.
const NEW_PAYMENT_NUMBERS: [u32; 3] = [3221322, 3221323, 3221324];

const AIRPORTS: [(&str, &str); 20] = [
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
];

/// The reservation system: flights, users and reservations, reached only through these methods.
#[derive(Debug, Clone)]
pub struct Airline {
    flights: BTreeMap<String, Flight>,
    users: BTreeMap<String, User>,
    reservations: BTreeMap<String, Reservation>,
    /// The tools called, in order.
    trace: Trace,
}

impl Airline {
    /// Reads τ²'s airline `db.json`.
    pub fn load(path: &str) -> Result<Airline, String> {
        #[derive(Deserialize)]
        struct Db {
            flights: BTreeMap<String, Flight>,
            users: BTreeMap<String, User>,
            reservations: BTreeMap<String, Reservation>,
        }
        let db: Db = read_db(path)?;
        Ok(Airline { flights: db.flights, users: db.users, reservations: db.reservations, trace: Trace::default() })
    }

    /// The database as τ² dumps it: `{"flights": {..}, "users": {..}, "reservations": {..}}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"flights": self.flights, "users": self.users, "reservations": self.reservations})
    }

    /// How many tools were called.
    pub fn tool_calls(&self) -> usize {
        self.trace.len()
    }

    /// The records (flights, users, reservations) whose contents differ from `expected`'s.
    pub fn diff(&self, expected: &Airline) -> Vec<String> {
        let mut out = Vec::new();
        differ("flight", &self.flights, &expected.flights, &mut out);
        differ("user", &self.users, &expected.users, &mut out);
        differ("reservation", &self.reservations, &expected.reservations, &mut out);
        out
    }

    /// What the benchmark harness reads after a task, as JSON: `{"tool_calls": N, "diff": [..], "assertions":
    /// [..]}`.
    pub fn verdict(&self, expected: &Airline, assertions: &[bool]) -> String {
        verdict(&self.trace, &self.diff(expected), assertions)
    }

    fn user(&self, user_id: &str) -> Result<&User, ToolError> {
        self.users.get(user_id).map_or_else(|| fail(format!("User {user_id} not found")), Ok)
    }

    fn reservation(&self, reservation_id: &str) -> Result<&Reservation, ToolError> {
        self.reservations
            .get(reservation_id)
            .map_or_else(|| fail(format!("Reservation {reservation_id} not found")), Ok)
    }

    fn flight(&self, flight_number: &str) -> Result<&Flight, ToolError> {
        self.flights.get(flight_number).map_or_else(|| fail(format!("Flight {flight_number} not found")), Ok)
    }

    fn flight_date(&self, flight_number: &str, date: &str) -> Result<&FlightDate, ToolError> {
        match self.flight(flight_number)?.dates.get(date) {
            Some(status) => Ok(status),
            None => fail(format!("Flight {flight_number} not found on date {date}")),
        }
    }

    /// A flight bookable on `date`: its origin and destination, seats left and prices; an error if it is not
    /// bookable.
    fn bookable(&self, flight: &FlightInfo) -> Result<(&Flight, super::PerCabin, super::PerCabin), ToolError> {
        let schedule = self.flight(&flight.flight_number)?;
        match self.flight_date(&flight.flight_number, &flight.date)? {
            FlightDate::Available { available_seats, prices } => Ok((schedule, *available_seats, *prices)),
            _ => fail(format!("Flight {} not available on date {}", flight.flight_number, flight.date)),
        }
    }

    /// Available flights on `date`, in flight-number order, from `origin` to `destination` where given, leaving
    /// at or after `leave_after` ("HH:MM:SS", compared as text) where given.
    fn search(
        &self,
        date: &str,
        origin: Option<&str>,
        destination: Option<&str>,
        leave_after: Option<&str>,
    ) -> Vec<DirectFlight> {
        let mut found = Vec::new();
        for flight in self.flights.values() {
            if origin.is_some_and(|o| flight.origin != o) || destination.is_some_and(|d| flight.destination != d) {
                continue;
            }
            let Some(FlightDate::Available { available_seats, prices }) = flight.dates.get(date) else { continue };
            if leave_after.is_some_and(|t| flight.scheduled_departure_time_est.as_str() < t) {
                continue;
            }
            found.push(DirectFlight {
                flight_number: flight.flight_number.clone(),
                origin: flight.origin.clone(),
                destination: flight.destination.clone(),
                status: "available".to_string(),
                scheduled_departure_time_est: flight.scheduled_departure_time_est.clone(),
                scheduled_arrival_time_est: flight.scheduled_arrival_time_est.clone(),
                date: None,
                available_seats: *available_seats,
                prices: *prices,
            });
        }
        found
    }

    /// Checks a payment for a change to a reservation and takes it from a gift card; the payment to record, if
    /// the price is not zero (a negative price is a refund to the method).
    fn pay_for_update(
        &mut self,
        user_id: &str,
        payment_id: &str,
        total_price: i64,
    ) -> Result<Option<Payment>, ToolError> {
        let user = self.users.get_mut(user_id).expect("the reservation's user was looked up");
        match user.payment_methods.get_mut(payment_id) {
            None => return fail("Payment method not found"),
            Some(PaymentMethod::Certificate { .. }) => return fail("Certificate cannot be used to update reservation"),
            Some(PaymentMethod::GiftCard { amount, .. }) => {
                if *amount < total_price as f64 {
                    return fail("Gift card balance is not enough");
                }
                *amount -= total_price as f64;
            }
            Some(PaymentMethod::CreditCard { .. }) => {}
        }
        Ok((total_price != 0).then(|| Payment::new(payment_id, total_price)))
    }

    /// Books a reservation for `user_id`: every flight in `cabin` for every passenger, paid in full by
    /// `payment_methods` (the amounts must add up to the price: the flights' prices per passenger, $30 per
    /// passenger for insurance, $50 per non-free bag).
    #[allow(clippy::too_many_arguments)]
    pub fn book_reservation(
        &mut self,
        user_id: &str,
        origin: &str,
        destination: &str,
        flight_type: FlightType,
        cabin: Cabin,
        flights: &[FlightInfo],
        passengers: &[Passenger],
        payment_methods: &[Payment],
        total_baggages: i64,
        nonfree_baggages: i64,
        insurance: Insurance,
    ) -> Result<Reservation, ToolError> {
        self.trace.record("book_reservation", serde_json::json!({"user_id": user_id, "origin": origin, "destination": destination, "flight_type": flight_type, "cabin": cabin, "flights": flights, "passengers": passengers, "payment_methods": payment_methods, "total_baggages": total_baggages, "nonfree_baggages": nonfree_baggages, "insurance": insurance}));
        self.user(user_id)?;
        let Some(reservation_id) = NEW_RESERVATION_IDS.into_iter().find(|id| !self.reservations.contains_key(*id))
        else {
            return fail("Too many reservations");
        };
        let seats_wanted = passengers.len() as i64;
        let mut total_price = 0;
        let mut booked = Vec::new();
        for flight in flights {
            let (schedule, available_seats, prices) = self.bookable(flight)?;
            if available_seats.get(cabin) < seats_wanted {
                return fail(format!("Not enough seats on flight {}", flight.flight_number));
            }
            let price = prices.get(cabin);
            booked.push(ReservationFlight {
                origin: schedule.origin.clone(),
                destination: schedule.destination.clone(),
                flight_number: flight.flight_number.clone(),
                date: flight.date.clone(),
                price,
            });
            total_price += price * seats_wanted;
        }
        if insurance == Insurance::Yes {
            total_price += 30 * seats_wanted;
        }
        total_price += 50 * nonfree_baggages;
        let user = self.user(user_id)?;
        for payment in payment_methods {
            let Some(method) = user.payment_methods.get(&payment.payment_id) else {
                return fail(format!("Payment method {} not found", payment.payment_id));
            };
            if method.amount().is_some_and(|left| left < payment.amount as f64) {
                return fail(format!("Not enough balance in payment method {}", payment.payment_id));
            }
        }
        let total_payment: i64 = payment_methods.iter().map(|p| p.amount).sum();
        if total_payment != total_price {
            return fail(format!(
                "Payment amount does not add up, total price is {total_price}, but paid {total_payment}"
            ));
        }
        let user = self.users.get_mut(user_id).expect("looked up above");
        for payment in payment_methods {
            // A certificate named twice is gone the second time: Python's `KeyError`, with what was taken so far
            // staying taken.
            match user.payment_methods.get_mut(&payment.payment_id) {
                None => return fail(format!("'{}'", payment.payment_id)),
                Some(PaymentMethod::GiftCard { amount, .. }) => *amount -= payment.amount as f64,
                Some(PaymentMethod::Certificate { .. }) => {
                    user.payment_methods.remove(&payment.payment_id);
                }
                Some(PaymentMethod::CreditCard { .. }) => {}
            }
        }
        for flight in flights {
            if let Some(FlightDate::Available { available_seats, .. }) =
                self.flights.get_mut(&flight.flight_number).and_then(|f| f.dates.get_mut(&flight.date))
            {
                *available_seats.get_mut(cabin) -= seats_wanted;
            }
        }
        let reservation = Reservation {
            reservation_id: reservation_id.to_string(),
            user_id: user_id.to_string(),
            origin: origin.to_string(),
            destination: destination.to_string(),
            flight_type,
            cabin,
            flights: booked,
            passengers: passengers.to_vec(),
            payment_history: payment_methods.to_vec(),
            created_at: NOW.to_string(),
            total_baggages,
            nonfree_baggages,
            insurance,
            status: None,
        };
        self.reservations.insert(reservation_id.to_string(), reservation.clone());
        self.users.get_mut(user_id).expect("looked up above").reservations.push(reservation_id.to_string());
        Ok(reservation)
    }

    /// Evaluates an arithmetic expression (numbers, `+ - * /`, parentheses, spaces) as Python does, and gives the
    /// result rounded to 2 decimals as text, e.g. "699.98".
    pub fn calculate(&mut self, expression: &str) -> Result<String, ToolError> {
        self.trace.record("calculate", serde_json::json!({"expression": expression}));
        super::python::calculate(expression).map_err(ToolError)
    }

    /// Cancels the whole reservation: every payment is refunded to its method (recorded as a negative payment).
    pub fn cancel_reservation(&mut self, reservation_id: &str) -> Result<Reservation, ToolError> {
        self.trace.record("cancel_reservation", serde_json::json!({"reservation_id": reservation_id}));
        self.reservation(reservation_id)?;
        let reservation = self.reservations.get_mut(reservation_id).expect("looked up above");
        let refunds: Vec<Payment> =
            reservation.payment_history.iter().map(|p| Payment::new(&p.payment_id, -p.amount)).collect();
        reservation.payment_history.extend(refunds);
        reservation.status = Some("cancelled".to_string());
        Ok(reservation.clone())
    }

    /// A reservation's details, by id (such as "8JX2WO").
    pub fn get_reservation_details(&mut self, reservation_id: &str) -> Result<Reservation, ToolError> {
        self.trace.record("get_reservation_details", serde_json::json!({"reservation_id": reservation_id}));
        self.reservation(reservation_id).cloned()
    }

    /// A user's details, with their payment methods and reservation ids, by id (such as "sara_doe_496").
    pub fn get_user_details(&mut self, user_id: &str) -> Result<User, ToolError> {
        self.trace.record("get_user_details", serde_json::json!({"user_id": user_id}));
        self.user(user_id).cloned()
    }

    /// Every airport the airline flies to.
    pub fn list_all_airports(&mut self) -> Vec<AirportCode> {
        self.trace.record("list_all_airports", serde_json::json!({}));
        AIRPORTS.iter().map(|(iata, city)| AirportCode { iata: iata.to_string(), city: city.to_string() }).collect()
    }

    /// Direct flights from `origin` to `destination` (IATA codes, such as "JFK") bookable on `date`
    /// ("YYYY-MM-DD").
    pub fn search_direct_flight(&mut self, origin: &str, destination: &str, date: &str) -> Vec<DirectFlight> {
        self.trace.record(
            "search_direct_flight",
            serde_json::json!({"origin": origin, "destination": destination, "date": date}),
        );
        self.search(date, Some(origin), Some(destination), None)
    }

    /// Pairs of flights from `origin` to `destination` with one stop, the first leg on `date` ("YYYY-MM-DD"), the
    /// second leaving after the first arrives; each leg's `date` is set.
    pub fn search_onestop_flight(
        &mut self,
        origin: &str,
        destination: &str,
        date: &str,
    ) -> Result<Vec<(DirectFlight, DirectFlight)>, ToolError> {
        self.trace.record(
            "search_onestop_flight",
            serde_json::json!({"origin": origin, "destination": destination, "date": date}),
        );
        let mut found = Vec::new();
        for mut first in self.search(date, Some(origin), None, None) {
            first.date = Some(date.to_string());
            let second_date = if first.scheduled_arrival_time_est.contains("+1") {
                let start = date.char_indices().rev().nth(1).map_or(0, |(i, _)| i);
                let day = &date[start..];
                match day.trim().parse::<i64>() {
                    Ok(day) => format!("2024-05-{}", day + 1),
                    Err(_) => return fail(format!("invalid literal for int() with base 10: '{day}'")),
                }
            } else {
                date.to_string()
            };
            let arrival = first.scheduled_arrival_time_est.clone();
            for mut second in self.search(&second_date, Some(&first.destination), Some(destination), Some(&arrival)) {
                second.date = Some(second_date.clone());
                found.push((first.clone(), second));
            }
        }
        Ok(found)
    }

    /// Sends `user_id` a certificate worth `amount` dollars (at most three per task). Be careful!
    pub fn send_certificate(&mut self, user_id: &str, amount: i64) -> Result<String, ToolError> {
        self.trace.record("send_certificate", serde_json::json!({"user_id": user_id, "amount": amount}));
        self.user(user_id)?;
        let user = self.users.get_mut(user_id).expect("looked up above");
        for number in NEW_PAYMENT_NUMBERS {
            let id = format!("certificate_{number}");
            if !user.payment_methods.contains_key(&id) {
                user.payment_methods
                    .insert(id.clone(), PaymentMethod::Certificate { id: id.clone(), amount: amount as f64 });
                return Ok(format!("Certificate {id} added to user {user_id} with amount {amount}."));
            }
        }
        fail("Too many certificates")
    }

    /// Hands the user to a human agent, with a summary of their issue: only when the user asks for one, or the
    /// policy and the tools cannot solve their issue.
    pub fn transfer_to_human_agents(&mut self, summary: &str) -> String {
        self.trace.record("transfer_to_human_agents", serde_json::json!({"summary": summary}));
        "Transfer successful".to_string()
    }

    /// Sets a reservation's bags; each non-free bag beyond those already paid costs $50, paid with `payment_id`
    /// (a credit card or gift card of the user's).
    pub fn update_reservation_baggages(
        &mut self,
        reservation_id: &str,
        total_baggages: i64,
        nonfree_baggages: i64,
        payment_id: &str,
    ) -> Result<Reservation, ToolError> {
        self.trace.record("update_reservation_baggages", serde_json::json!({"reservation_id": reservation_id, "total_baggages": total_baggages, "nonfree_baggages": nonfree_baggages, "payment_id": payment_id}));
        let user_id = self.reservation(reservation_id)?.user_id.clone();
        self.user(&user_id)?;
        let paid = self.reservations[reservation_id].nonfree_baggages;
        let total_price = 50 * 0.max(nonfree_baggages - paid);
        let payment = self.pay_for_update(&user_id, payment_id, total_price)?;
        let reservation = self.reservations.get_mut(reservation_id).expect("looked up above");
        reservation.payment_history.extend(payment);
        reservation.total_baggages = total_baggages;
        reservation.nonfree_baggages = nonfree_baggages;
        Ok(reservation.clone())
    }

    /// Replaces a reservation's flights with `flights` (all of them, changed or not) in `cabin`; the price
    /// difference for every passenger is paid with, or refunded to, `payment_id` (a credit card or gift card).
    pub fn update_reservation_flights(
        &mut self,
        reservation_id: &str,
        cabin: Cabin,
        flights: &[FlightInfo],
        payment_id: &str,
    ) -> Result<Reservation, ToolError> {
        self.trace.record("update_reservation_flights", serde_json::json!({"reservation_id": reservation_id, "cabin": cabin, "flights": flights, "payment_id": payment_id}));
        let reservation = self.reservation(reservation_id)?.clone();
        self.user(&reservation.user_id)?;
        let passengers = reservation.passengers.len() as i64;
        let mut total_price = 0;
        let mut new_flights = Vec::new();
        for flight in flights {
            // A flight the reservation already has, in an unchanged cabin, keeps the price paid.
            let kept = reservation.flights.iter().find(|f| {
                f.flight_number == flight.flight_number && f.date == flight.date && cabin == reservation.cabin
            });
            if let Some(kept) = kept {
                total_price += kept.price * passengers;
                new_flights.push(kept.clone());
                continue;
            }
            let (schedule, available_seats, prices) = self.bookable(flight)?;
            if available_seats.get(cabin) < passengers {
                return fail(format!("Not enough seats on flight {}", flight.flight_number));
            }
            let added = ReservationFlight {
                flight_number: flight.flight_number.clone(),
                date: flight.date.clone(),
                price: prices.get(cabin),
                origin: schedule.origin.clone(),
                destination: schedule.destination.clone(),
            };
            total_price += added.price * passengers;
            new_flights.push(added);
        }
        total_price -= reservation.flights.iter().map(|f| f.price).sum::<i64>() * passengers;
        let payment = self.pay_for_update(&reservation.user_id, payment_id, total_price)?;
        let reservation = self.reservations.get_mut(reservation_id).expect("looked up above");
        reservation.payment_history.extend(payment);
        reservation.flights = new_flights;
        reservation.cabin = cabin;
        Ok(reservation.clone())
    }

    /// Replaces a reservation's passengers (as many as it has).
    pub fn update_reservation_passengers(
        &mut self,
        reservation_id: &str,
        passengers: &[Passenger],
    ) -> Result<Reservation, ToolError> {
        self.trace.record(
            "update_reservation_passengers",
            serde_json::json!({"reservation_id": reservation_id, "passengers": passengers}),
        );
        if passengers.len() != self.reservation(reservation_id)?.passengers.len() {
            return fail("Number of passengers does not match");
        }
        let reservation = self.reservations.get_mut(reservation_id).expect("looked up above");
        reservation.passengers = passengers.to_vec();
        Ok(reservation.clone())
    }

    /// A flight's status on a date: "available", "landed", "cancelled", "delayed", "flying" or "on time".
    pub fn get_flight_status(&mut self, flight_number: &str, date: &str) -> Result<String, ToolError> {
        self.trace.record("get_flight_status", serde_json::json!({"flight_number": flight_number, "date": date}));
        Ok(self.flight_date(flight_number, date)?.status().to_string())
    }
}
