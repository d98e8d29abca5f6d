"""Labels testdata/agentdojo/datetime.cases with CPython: how AgentDojo's tools read the dates and times a model
passes them. `iso` is datetime.fromisoformat (reserve_hotel, reserve_car_rental, reserve_restaurant); `minute` is
datetime.strptime(x, "%Y-%m-%d %H:%M") (create_calendar_event, reschedule_calendar_event); `day` is
datetime.strptime(x, "%Y-%m-%d") (get_day_calendar_events, search_calendar_events). Each line: the parser, a tab,
the input, a tab, and `= str(result)` or `! the error's text`.

    python3 scripts/agentdojo_datetime_cases.py > testdata/agentdojo/datetime.cases
"""
import datetime
import platform

INPUTS = [
    "2024-05-15", "2024-05-15 10:00", "2024-05-15T10:00", "2024-05-15 10:00:00", "2024-05-15T10:00:30",
    "2024-05-15T10", "2024-5-15", "2024-05-1", "2024-5-1 9:00", "2024-05-15 9:5", "2024-05-15 09:05",
    "2024-02-29", "2023-02-29", "2024-02-30 10:00", "2024-04-31", "2024-13-01", "2024-00-10", "2024-12-00",
    "2024-05-15 24:00", "2024-05-15 23:59", "2024-05-15 23:60", "2024-05-15  10:00", "2024-05-15 10:00 ",
    " 2024-05-15", "2024/05/15", "15-05-2024", "May 15, 2024", "2024-05-15T10:00:00Z", "2024-05-15T10:00:00+02:00",
    "2024-05-15 10:00:00.5", "20240515", "24-05-15", "2024-05-15 10", "2024-05-15 10:00 AM", "", "today",
    "2025-01-11", "2025-01-02 00:00", "2024-06-10 13:00", "0001-01-01", "9999-12-31 23:59",
]

def label(f, x):
    try:
        return "= " + str(f(x))
    except Exception as e:  # noqa: BLE001 - the text is what is compared
        return "! " + str(e)

print(f"# AgentDojo's date parsing as CPython {platform.python_version()} does it (see scripts/agentdojo_datetime_cases.py).")
for x in INPUTS:
    print(f"iso\t{x}\t{label(datetime.datetime.fromisoformat, x)}")
    print(f"minute\t{x}\t{label(lambda s: datetime.datetime.strptime(s, '%Y-%m-%d %H:%M'), x)}")
    print(f"day\t{x}\t{label(lambda s: datetime.datetime.strptime(s, '%Y-%m-%d'), x)}")
