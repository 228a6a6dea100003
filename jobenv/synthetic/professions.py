"""The 35 JobBench professions and the people, organisations and occasions that frame their requests.

Each profession has the folder name JobBench uses, a plain title, organisations it works in, the roles
that send it work, and occasions that make a request urgent. The composer draws from these so that two
tasks of one family read like requests from different desks.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Profession", "PROFESSIONS", "profession", "FIRST_NAMES", "SURNAMES"]


@dataclass(frozen=True)
class Profession:
    key: str
    title: str
    orgs: tuple[str, ...]
    requesters: tuple[str, ...]
    occasions: tuple[str, ...]


def _p(key: str, title: str, orgs: str, requesters: str, occasions: str) -> Profession:
    split = lambda s: tuple(x.strip() for x in s.split("|"))  # noqa: E731
    return Profession(key, title, split(orgs), split(requesters), split(occasions))


PROFESSIONS: tuple[Profession, ...] = (
    _p("biostatisticians", "biostatistician", "a university hospital's clinical research unit|a contract research organisation|a state health department's epidemiology office",
       "Principal Investigator|Director of Clinical Analytics|Study Physician", "the data safety monitoring board meets on Thursday|the interim analysis plan is being finalised|a journal reviewer asked for the breakdown"),
    _p("bookkeeping_accounting_and_auditing_clerks", "accounting clerk", "a regional distribution company|a property management firm|a county treasurer's office",
       "Accounts Payable Supervisor|Controller|Senior Accountant", "the month-end close is on Friday|the external auditors arrive next week|the bank asked for a reconciled balance"),
    _p("civil_engineers", "civil engineer", "a state department of transportation|an engineering consultancy|a municipal public works department",
       "Project Manager|District Engineer|Principal Engineer", "the design review board meets next week|the grant application needs supporting numbers|the council asked for a technical note"),
    _p("computer_and_information_research_scientists", "research scientist", "an applied research lab|a university computing department|a data platform team",
       "Research Lead|Lab Director|Staff Scientist", "the paper's camera-ready deadline is close|the steering committee wants evidence before funding the next phase|a reviewer challenged the baseline"),
    _p("computer_and_information_systems_managers", "IT manager", "a mid-sized insurer|a hospital network's IT department|a logistics company",
       "CIO|Head of Infrastructure|IT Finance Partner", "the budget cycle opens next week|the board's technology committee meets soon|the vendor contract is up for renewal"),
    _p("computer_user_support_specialists", "support specialist", "a telecom provider's help desk|a university IT service desk|a SaaS company's support team",
       "Support Team Lead|Service Desk Manager|Customer Operations Director", "the quarterly service review is coming up|escalations have risen this month|leadership wants a staffing argument"),
    _p("court_clerks", "court clerk", "a county superior court|a district court clerk's office|a state judicial branch records unit",
       "Clerk of Court|Chief Deputy Clerk|Court Administrator", "the presiding judge asked for figures before the calendar meeting|the annual caseload report is due|an audit of fee records is scheduled"),
    _p("customer_service_representatives", "customer service representative", "a telecom provider|a subscription retailer|a utility company's contact centre",
       "Customer Care Manager|Retention Team Lead|Head of Customer Experience", "the retention campaign is being planned|the monthly customer review is on Monday|complaints have gone up"),
    _p("data_entry_keyers", "data entry specialist", "a records processing centre|a hospital registration office|a market research firm's data unit",
       "Data Operations Supervisor|Records Manager|Quality Control Lead", "the batch must be released today|a client found errors in the last delivery|the keying audit is this week"),
    _p("financial_managers_branch_or_department", "financial manager", "a manufacturing group|a regional bank branch network|a holding company's finance office",
       "CFO|VP Corporate Finance|Finance Director", "the investment committee meets on Tuesday|the quarterly forecast is being locked|the board pack goes out Friday"),
    _p("human_resources_specialists", "HR specialist", "a public university|a hospital system|a technology company",
       "Director of Total Rewards|HR Business Partner|Head of People Analytics", "the compensation committee meets next week|the pay equity review starts soon|the works council asked for figures"),
    _p("lawyers", "attorney", "a consumer finance practice group|a regulatory compliance law firm|a legal aid organisation",
       "Supervising Partner|General Counsel|Senior Associate", "the regulator's response is due|the client meeting is on Wednesday|opposing counsel produced new figures"),
    _p("licensing_examiners_and_inspectors", "licensing examiner", "a state environmental agency|a transport licensing authority|a consumer protection bureau",
       "Chief Inspector|Licensing Program Manager|Compliance Director", "the renewal cycle closes this month|a complaint triggered a desk review|the annual compliance report is due"),
    _p("management_analysts", "management analyst", "a management consultancy|a state budget office|a hospital operations improvement team",
       "Engagement Manager|Operations Director|Partner", "the client's steering committee meets on Monday|the interim findings are due|the sponsor wants a recommendation"),
    _p("mechanical_engineering_technicians", "engineering technician", "a test laboratory|an automotive supplier's validation shop|a plant maintenance group",
       "Test Engineer|Lab Supervisor|Reliability Engineer", "the test report is due|the supplier review is next week|a customer asked for the evidence"),
    _p("mechanical_engineers", "mechanical engineer", "an equipment manufacturer|a vehicle fleet engineering group|an energy services company",
       "Engineering Manager|Chief Engineer|Product Lead", "the design freeze is next week|the customer's technical audit is coming|the programme review needs numbers"),
    _p("medical_and_health_services_managers", "health services manager", "a regional hospital|an integrated care network|a community health centre group",
       "Chief Operating Officer|Director of Patient Flow|VP Clinical Operations", "the utilisation committee meets on Thursday|the payer negotiation starts soon|the board's quality committee asked for figures"),
    _p("medical_secretaries", "medical secretary", "a multi-site clinic|a hospital outpatient department|a specialist practice",
       "Practice Manager|Clinic Director|Office Lead", "the rota for next month is being drafted|the clinic meeting is on Monday|patients complained about waiting times"),
    _p("online_merchants", "online merchant", "an online jewellery shop|a marketplace seller of consumer goods|a direct-to-consumer retailer",
       "Head of E-commerce|Merchandising Lead|Founder", "the pricing refresh goes live next week|the catalogue review is on Friday|the marketplace changed its fee structure"),
    _p("personal_financial_advisors", "financial advisor", "an independent advisory practice|a bank's wealth management desk|a family office",
       "Senior Advisor|Practice Principal|Client Relationship Lead", "the client review meeting is next week|the annual rebalancing is due|a client asked a pointed question"),
    _p("petroleum_engineers", "petroleum engineer", "an exploration and production company|an energy consultancy|a midstream operator",
       "Reservoir Engineering Manager|Asset Manager|VP Operations", "the reserves review is due|the capital plan is being set|the partner meeting is next week"),
    _p("police_fire_and_ambulance_dispatchers", "dispatch supervisor", "a county emergency communications centre|a regional dispatch authority|a city public safety answering point",
       "Communications Centre Manager|Deputy Chief of Operations|Shift Supervisor", "the staffing plan for next quarter is due|the call-handling review is on Monday|the board asked about peak loads"),
    _p("producers", "producer", "a film production company|a streaming studio's development team|an independent production house",
       "Executive Producer|Head of Development|Line Producer", "the greenlight meeting is on Thursday|the financiers want a slate review|the budget lock is next week"),
    _p("purchasing_agents_except_wholesale_retail_and_farm_products", "purchasing agent", "a university procurement office|a municipal fleet department|a hospital supply chain group",
       "Procurement Manager|Head of Strategic Sourcing|Fleet Manager", "the award recommendation is due|renewal negotiations start next month|the tender committee meets on Tuesday"),
    _p("reporters_and_correspondents", "reporter", "a regional newspaper's data desk|a public radio newsroom|an investigative news site",
       "Data Editor|Managing Editor|Investigations Editor", "the story runs this weekend|the editor wants the numbers checked before publication|a reader challenged last week's figures"),
    _p("sales_agents_securities_and_commodities", "securities sales agent", "a broker-dealer's retail desk|an investment bank's sales team|a regional brokerage",
       "Branch Manager|Head of Sales Trading|Compliance Officer", "the client call is tomorrow morning|the monthly desk review is on Friday|compliance asked for the numbers"),
    _p("sales_representatives_wholesale_and_manufacturing_technical_and_scientific_products", "technical sales representative", "a laboratory equipment distributor|an industrial components manufacturer|a scientific instruments company",
       "Regional Sales Director|Key Account Manager|Sales Engineering Lead", "the customer's evaluation closes next week|the quarterly business review is on Monday|a competitor cut prices"),
    _p("secretaries_and_administrative_assistants_except_legal_medical_and_executive", "administrative assistant", "a university department office|a non-profit's head office|a regional government office",
       "Office Manager|Department Administrator|Operations Coordinator", "the department meeting is on Wednesday|the annual report needs a table|the director asked for a one-page summary"),
    _p("social_science_research_assistants", "research assistant", "a university survey research centre|a policy institute|a political science department",
       "Principal Investigator|Senior Research Fellow|Project Director", "the working paper draft is due|the funder's progress report is next week|the seminar presentation is on Friday"),
    _p("sociology_teachers_postsecondary", "sociology lecturer", "a state university sociology department|a community college social sciences division|a liberal arts college",
       "Department Chair|Course Coordinator|Associate Dean", "the curriculum committee meets next week|the course review is due|the dean asked for evidence"),
    _p("statisticians", "statistician", "a national statistics office|a consulting statistics group|an insurer's analytics team",
       "Chief Statistician|Analytics Manager|Methodology Lead", "the publication goes to review on Monday|the client wants the tables this week|the methods panel asked for a check"),
    _p("supply_chain_managers", "supply chain manager", "a consumer goods distributor|an airline's ground operations|a hospital supply network",
       "VP Supply Chain|Logistics Director|Operations Planning Manager", "the S&OP meeting is on Wednesday|the peak-season plan is being set|the carrier contract is up for renewal"),
    _p("technical_writers", "technical writer", "an equipment manufacturer's documentation team|a software company's docs group|a scientific publisher",
       "Documentation Manager|Product Manager|Editor-in-Chief", "the datasheet goes to print next week|the release notes are due|a customer reported a wrong figure in the manual"),
    _p("training_and_development_specialists", "training specialist", "a university teaching and learning centre|a corporate academy|a hospital education department",
       "Head of Learning|Director of Faculty Development|Training Manager", "the programme review is next month|the leadership offsite needs evidence|the budget for next year's courses is being set"),
    _p("web_administrators", "web administrator", "a hosted email provider|a university web services team|a marketing agency's platform team",
       "Head of Platform|IT Security Lead|Web Operations Manager", "the filter rules are being reviewed|the security audit is next week|users complained about missed mail"),
)

_BY_KEY = {p.key: p for p in PROFESSIONS}


def profession(key: str) -> Profession:
    """The profession called ``key`` (KeyError for an unknown one)."""
    return _BY_KEY[key]


FIRST_NAMES = ("Ana", "Ben", "Chiara", "Dev", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemi", "Luca",
               "Maya", "Nikhil", "Olga", "Pedro", "Quinn", "Rosa", "Sami", "Tanya", "Uma", "Victor", "Wen", "Yusuf",
               "Zora", "Aidan", "Bea", "Colm", "Dana", "Emeka", "Freya", "Gus", "Hana", "Ivo", "Jade", "Kofi")
SURNAMES = ("Okafor", "Lindqvist", "Moreau", "Nakamura", "Osei", "Petrov", "Quiroga", "Rahman", "Silva", "Tanaka",
            "Varga", "Walsh", "Xu", "Yilmaz", "Zimmer", "Abbott", "Brennan", "Castillo", "Dubois", "Eriksen",
            "Fischer", "Gallo", "Haddad", "Iqbal", "Jensen", "Kowalski", "Larsen", "Mensah", "Novak", "Ortiz")
