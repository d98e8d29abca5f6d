// AgentDojo's travel suite as a Lacuna host: the `src/main.rs` of a cargo project that `lacuna-agentdojo` generates
// from this template (crates/agentdojo/hosts/travel.rs) and the calendar and email clients (hosts/office.rs). The
// tools are Rust ports of AgentDojo's travel-booking, calendar and email tools; each user task is a function whose
// hole sees only the tools its ground truth uses, handed in as values. The harness's control file (`CONTROL`,
// JSON) picks the task, holds the environment (the suite's environment.yaml, clean or carrying an injection task's
// goal, which the types below deserialize) and says where the final environment goes.
use std::cell::RefCell;
use std::collections::BTreeMap;

/*@CONTROL@*/

/*@OFFICE@*/

mod travel {
    use super::{dt, Calendar, DateTime, Inbox};
    use std::collections::BTreeMap;

    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    pub struct User {
        first_name: String,
        last_name: String,
        id_number: String,
        email: String,
        phone_number: String,
        address: String,
        passport_number: String,
        bank_account_number: String,
        credit_card_number: String,
    }

    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    pub struct Hotel {
        name: String,
        city: String,
        rating: f64,
        price_min: f64,
        price_max: f64,
        address: String,
        reviews: Vec<String>,
    }

    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    pub struct Restaurant {
        name: String,
        city: String,
        address: String,
        rating: f64,
        price_per_person: f64,
        operating_hours: String,
        reviews: Vec<String>,
        contact_information: String,
        cuisine_type: String,
        dietary_restrictions: String,
    }

    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    pub struct CarRentalCompany {
        name: String,
        city: String,
        address: String,
        rating: f64,
        price_per_day: f64,
        reviews: Vec<String>,
        contact_information: String,
        car_types_available: Vec<String>,
        fuel_options: Vec<String>,
    }

    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    pub struct Flight {
        airline: String,
        flight_number: String,
        departure_city: String,
        arrival_city: String,
        departure_time: DateTime,
        arrival_time: DateTime,
        price: f64,
        contact_information: String,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
    pub enum ReservationType {
        Hotel,
        Car,
        Restaurant,
    }

    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    pub struct Reservation {
        reservation_type: Option<ReservationType>,
        title: String,
        start_time: DateTime,
        end_time: DateTime,
        contact_information: String,
    }

    /// The suite's whole state. Snippets cannot reach it but through the tools they are handed.
    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    pub struct Environment {
        user: User,
        hotels: Vec<Hotel>,
        restaurants: Vec<Restaurant>,
        car_rental: Vec<CarRentalCompany>,
        flights: Vec<Flight>,
        reservation: Reservation,
        pub(crate) inbox: Inbox,
        pub(crate) calendar: Calendar,
    }

    /*@CHECKS@*/

    /// Python's `str(float)` for this suite's numbers (none needs an exponent).
    fn py_float(x: f64) -> String {
        format!("{x:?}")
    }

    fn rating_reviews(rating: f64, reviews: &[String]) -> String {
        format!("Rating: {}\nReviews: {}", py_float(rating), reviews.join("\n"))
    }

    fn named(names: &[&str], name: &str) -> bool {
        names.contains(&name)
    }

    impl Environment {
        /// The environment the harness wrote: clean, or with an injection task's goal in its injection vectors.
        pub fn load(data: serde_json::Value) -> Result<Environment, String> {
            serde_json::from_value(data).map_err(|e| format!("the environment the harness wrote: {e}"))
        }

        pub fn get_user_information(&self) -> BTreeMap<String, String> {
            let u = &self.user;
            [
                ("First Name", &u.first_name),
                ("Last Name", &u.last_name),
                ("ID Number", &u.id_number),
                ("Email", &u.email),
                ("Phone Number", &u.phone_number),
                ("Address", &u.address),
                ("Passport Number", &u.passport_number),
                ("Bank Account Number", &u.bank_account_number),
                ("Credit Card Number", &u.credit_card_number),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
        }

        pub fn get_all_hotels_in_city(&self, city: &str) -> String {
            let names: Vec<&str> = self.hotels.iter().filter(|h| h.city == city).map(|h| h.name.as_str()).collect();
            format!("Hotel Names: {}\n", names.join("\n"))
        }

        pub fn get_hotels_prices(&self, hotel_names: &[&str]) -> BTreeMap<String, String> {
            self.hotels
                .iter()
                .filter(|h| named(hotel_names, &h.name))
                .map(|h| (h.name.clone(), format!("Price range: {} - {}", py_float(h.price_min), py_float(h.price_max))))
                .collect()
        }

        pub fn get_rating_reviews_for_hotels(&self, hotel_names: &[&str]) -> BTreeMap<String, String> {
            self.hotels
                .iter()
                .filter(|h| named(hotel_names, &h.name))
                .map(|h| (h.name.clone(), rating_reviews(h.rating, &h.reviews)))
                .collect()
        }

        pub fn get_hotels_address(&self, hotel_name: &str) -> BTreeMap<String, String> {
            self.hotels.iter().filter(|h| h.name == hotel_name).map(|h| (h.name.clone(), h.address.clone())).collect()
        }

        pub fn get_all_restaurants_in_city(&self, city: &str) -> String {
            let names: Vec<&str> =
                self.restaurants.iter().filter(|r| r.city == city).map(|r| r.name.as_str()).collect();
            format!("Restaurant in {city}: {}\n", names.join("\n"))
        }

        fn restaurant_field(&self, names: &[&str], field: impl Fn(&Restaurant) -> String) -> BTreeMap<String, String> {
            self.restaurants.iter().filter(|r| named(names, &r.name)).map(|r| (r.name.clone(), field(r))).collect()
        }

        pub fn get_cuisine_type_for_restaurants(&self, restaurant_names: &[&str]) -> BTreeMap<String, String> {
            self.restaurant_field(restaurant_names, |r| r.cuisine_type.clone())
        }

        pub fn get_restaurants_address(&self, restaurant_names: &[&str]) -> BTreeMap<String, String> {
            self.restaurant_field(restaurant_names, |r| r.address.clone())
        }

        pub fn get_rating_reviews_for_restaurants(&self, restaurant_names: &[&str]) -> BTreeMap<String, String> {
            self.restaurant_field(restaurant_names, |r| rating_reviews(r.rating, &r.reviews))
        }

        /// AgentDojo matches a restaurant here when its name is a substring of the names joined with ", ".
        pub fn get_dietary_restrictions_for_all_restaurants(&self, restaurant_names: &[&str]) -> BTreeMap<String, String> {
            let joined = restaurant_names.join(", ");
            self.restaurants
                .iter()
                .filter(|r| joined.contains(r.name.as_str()))
                .map(|r| (r.name.clone(), r.dietary_restrictions.clone()))
                .collect()
        }

        pub fn get_contact_information_for_restaurants(&self, restaurant_names: &[&str]) -> BTreeMap<String, String> {
            self.restaurant_field(restaurant_names, |r| r.contact_information.clone())
        }

        pub fn get_price_for_restaurants(&self, restaurant_names: &[&str]) -> BTreeMap<String, f64> {
            self.restaurants
                .iter()
                .filter(|r| named(restaurant_names, &r.name))
                .map(|r| (r.name.clone(), r.price_per_person))
                .collect()
        }

        pub fn check_restaurant_opening_hours(&self, restaurant_names: &[&str]) -> BTreeMap<String, String> {
            self.restaurant_field(restaurant_names, |r| r.operating_hours.clone())
        }

        pub fn get_all_car_rental_companies_in_city(&self, city: &str) -> String {
            let names: Vec<&str> = self.car_rental.iter().filter(|c| c.city == city).map(|c| c.name.as_str()).collect();
            format!("Car Rental Companies in {city}: {}\n", names.join("\n"))
        }

        fn company_field<T>(&self, names: &[&str], field: impl Fn(&CarRentalCompany) -> T) -> BTreeMap<String, T> {
            self.car_rental.iter().filter(|c| named(names, &c.name)).map(|c| (c.name.clone(), field(c))).collect()
        }

        pub fn get_car_types_available(&self, company_name: &[&str]) -> BTreeMap<String, Vec<String>> {
            self.company_field(company_name, |c| c.car_types_available.clone())
        }

        pub fn get_rating_reviews_for_car_rental(&self, company_name: &[&str]) -> BTreeMap<String, String> {
            self.company_field(company_name, |c| rating_reviews(c.rating, &c.reviews))
        }

        pub fn get_car_rental_address(&self, company_name: &[&str]) -> BTreeMap<String, String> {
            self.company_field(company_name, |c| c.address.clone())
        }

        pub fn get_car_fuel_options(&self, company_name: &[&str]) -> BTreeMap<String, Vec<String>> {
            self.company_field(company_name, |c| c.fuel_options.clone())
        }

        pub fn get_car_price_per_day(&self, company_name: &[&str]) -> BTreeMap<String, f64> {
            self.company_field(company_name, |c| c.price_per_day)
        }

        /// Like AgentDojo's: the reservation's contact, kind and title are set before the dates are parsed, so a
        /// bad date leaves them changed.
        fn reserve(&mut self, kind: ReservationType, title: &str) {
            self.reservation.contact_information = self.user.phone_number.clone();
            self.reservation.reservation_type = Some(kind);
            self.reservation.title = title.to_string();
        }

        pub fn reserve_hotel(&mut self, hotel: &str, start_day: &str, end_day: &str) -> Result<String, String> {
            self.reserve(ReservationType::Hotel, hotel);
            self.reservation.start_time = DateTime::from_iso(start_day)?;
            self.reservation.end_time = DateTime::from_iso(end_day)?;
            Ok(format!("Reservation for {hotel} from {start_day} to {end_day} has been made successfully."))
        }

        pub fn reserve_restaurant(&mut self, restaurant: &str, start_time: &str) -> Result<String, String> {
            self.reserve(ReservationType::Restaurant, restaurant);
            let start = DateTime::from_iso(start_time)?;
            self.reservation.start_time = start;
            self.reservation.end_time = start.plus_seconds(2 * 3600);
            let end = self.reservation.end_time;
            Ok(format!(
                "Reservation for {restaurant} from {} to {} on {} has been made successfully.",
                start.hour_minute(),
                end.hour_minute(),
                start.date_iso()
            ))
        }

        /// Like AgentDojo's: the reservation ends when it starts, whatever `end_time` says.
        pub fn reserve_car_rental(&mut self, company: &str, start_time: &str, end_time: Option<&str>) -> Result<String, String> {
            self.reserve(ReservationType::Car, company);
            self.reservation.start_time = DateTime::from_iso(start_time)?;
            self.reservation.end_time = DateTime::from_iso(start_time)?;
            Ok(format!(
                "Reservation for a car at {company} from {start_time} to {} has been made successfully.",
                end_time.unwrap_or("None")
            ))
        }

        pub fn get_flight_information(&self, departure_city: &str, arrival_city: &str) -> String {
            let lines: Vec<String> = self
                .flights
                .iter()
                .filter(|f| f.departure_city == departure_city && f.arrival_city == arrival_city)
                .map(|f| {
                    format!(
                        "Airline: {}, Flight Number: {}, Departure Time: {}, Arrival Time: {}, Price: {}, Contact \
                         Information: {}",
                        f.airline,
                        f.flight_number,
                        f.departure_time,
                        f.arrival_time,
                        py_float(f.price),
                        f.contact_information
                    )
                })
                .collect();
            lines.join("\n")
        }
    }
}

/*@TASKS@*/

/*@MAIN@*/
