"""Content of the bundled scenario ``web_research`` (AgentFold). Fictional cities and companies."""

QUERY = (
    "Write a one-page briefing for the transport committee of Aldmere (population 240,000) comparing the "
    "public e-bike share programs of three peer cities - Rivermouth, Castellan and Norby: fleet size, "
    "ridership in 2025, price per ride, how each is funded, and safety. Recommend which model Aldmere "
    "should copy, with the numbers that justify it."
)

TOOLS = [
    "search(query): web search; returns the top results with title, URL and snippet",
    "open_page(url): fetch a web page or PDF and return its main text",
    "calculate(expression): evaluate an arithmetic expression",
    "finish(answer): submit the final briefing to the user",
]

# (thought, action, observation, fold): the fold is the directive the agent writes with its response at step
# t, {"range": [x, t - 1], "summary": σ}: granular (x = t - 1) or deep (x < t - 1, the end of a sub-task). The
# summary is the agent's own text: it keeps the numbers and names a later question needs.


def fold(summary, start=None):
    """The directive at step t: a placeholder for the range [start or t - 1, t - 1], filled in below."""
    return {"start": start, "summary": summary}


STEPS = [
    # ---------------------------------------------------------------- sub-task 1: Rivermouth (0-7)
    (
        "The briefing needs five facts for each of three cities, so I will work city by city and keep a "
        "compact note for each before moving on. Start with Rivermouth: its city site should have an annual report.",
        'search(query="Rivermouth e-bike share annual report 2025 fleet ridership")',
        "1. RiverBike Annual Report 2025 - City of Rivermouth | rivermouth.gov/mobility/riverbike-2025\n"
        "   The second full year of the electric fleet: trips, stations, finances and customer survey.\n"
        "2. RiverBike hits two million trips | rivermouthherald.com/2025/11/riverbike-two-million\n"
        "   The system passed the two-million mark in November, helped by a mild autumn.\n"
        "3. Voltway GmbH - Our cities | voltway.eu/cities\n"
        "   Voltway operates e-bike systems in Rivermouth, Hallam and Port Evra.\n"
        "4. Council minutes 12 March 2024: mobility concession | rivermouth.gov/council/minutes-2024-03-12\n"
        "5. Reddit r/rivermouth: Is RiverBike worth it? | reddit.com/r/rivermouth/comments/riverbike\n"
        "   Residents compare the monthly pass with owning a bike.",
        None,  # the first step has nothing to fold
    ),
    (
        "The official annual report is the primary source; open it for fleet, stations, trips and prices.",
        'open_page(url="rivermouth.gov/mobility/riverbike-2025")',
        "RiverBike Annual Report 2025. Summary. In 2025 RiverBike operated a fleet of 1,450 pedal-assist "
        "e-bikes from 212 docking stations across all nine districts. Riders made 2,310,000 trips, up 18% on "
        "2024, with an average trip length of 3.4 km and an average duration of 14 minutes. Members: 41,200 "
        "annual and monthly pass holders at year end. Prices: a single ride costs 1.20 euros to unlock plus "
        "0.18 euros per minute; a monthly pass costs 24 euros and includes 45 minutes per day. Reduced "
        "fares apply to students and people on income support (50% off passes). Availability: on average "
        "94.1% of stations had at least one charged bike between 07:00 and 20:00. Customer satisfaction "
        "reached 7.9 out of 10 in the autumn survey (n = 3,050).",
        fold("Searched Rivermouth e-bike share: the city's RiverBike Annual Report 2025 is at rivermouth.gov/mobility/riverbike-2025; operator Voltway GmbH; concession in council minutes of 12 March 2024."),
    ),
    (
        "Prices and trips are clear. Next the funding model: the search mentioned a concession to Voltway. "
        "I need the contract value and what the city pays.",
        'search(query="RiverBike Voltway concession contract value city contribution")',
        "1. Council approves e-bike concession | rivermouthherald.com/2024/03/council-approves-ebike-deal\n"
        "   After a three-hour debate the council voted 31 to 14 for a nine-year concession.\n"
        "2. Council minutes 12 March 2024 | rivermouth.gov/council/minutes-2024-03-12\n"
        "3. Voltway wins Rivermouth tender | cyclingindustry.news/voltway-rivermouth\n"
        "   The German operator beat two bidders on price and fleet availability.\n"
        "4. Public procurement notice 2023/S 211-448190 | ted.europa.example/notice/448190",
        fold('RiverBike Annual Report 2025 (Rivermouth): fleet 1,450 pedal-assist e-bikes, 212 stations; 2,310,000 trips in 2025 (+18%), 3.4 km / 14 min average; 41,200 pass holders; price 1.20 euros unlock + 0.18 euros/min, monthly pass 24 euros (45 min/day), 50% off for students and income support; 94.1% station availability; satisfaction 7.9/10.'),
    ),
    (
        "The Herald article should summarise the deal in plain numbers.",
        'open_page(url="rivermouthherald.com/2024/03/council-approves-ebike-deal")',
        "Council approves e-bike deal. Rivermouth city council on Tuesday approved a nine-year concession "
        "with Voltway GmbH to run the RiverBike system, a contract worth 14.6 million euros over its "
        "lifetime. Under the deal Voltway keeps all fare revenue and sponsorship income, while the city pays "
        "a fixed availability fee of 1.1 million euros per year, reduced by penalties whenever fewer than 90% "
        "of stations have a bike. Councillor Helga Sorensen, who chairs the mobility committee, said the "
        "penalty clause 'puts the risk where it belongs, with the operator'. Opposition councillors argued "
        "the fee was too high for a city of 410,000 people. The concession starts on 1 January 2025.",
        fold('Searched the RiverBike concession: council voted 31 to 14 for a nine-year concession to Voltway; Herald article at rivermouthherald.com/2024/03/council-approves-ebike-deal.'),
    ),
    (
        "I should check the monthly ridership to see whether the 2.31 million figure is steady or seasonal, "
        "since Aldmere has colder winters.",
        'open_page(url="rivermouth.gov/mobility/riverbike-dashboard")',
        "RiverBike open data dashboard - trips per month, 2025: January 98,400; February 104,900; March "
        "162,300; April 201,700; May 243,800; June 262,100; July 251,600; August 238,900; September "
        "247,200; October 214,500; November 165,300; December 119,300. Peak hour: 17:00-18:00 on weekdays. "
        "Busiest station: Central Station East (96,140 departures). Share of trips ending at a different "
        "district than they started: 38%.",
        fold('Rivermouth funding: nine-year concession with Voltway GmbH worth 14.6 million euros; Voltway keeps fares and sponsorship; city pays a fixed availability fee of 1.1 million euros/year, cut by penalties when fewer than 90% of stations have a bike. Councillor Helga Sorensen chairs the mobility committee. Rivermouth population 410,000; concession from 1 January 2025.'),
    ),
    (
        "Winter months are about 40% of the summer peak, which is useful for Aldmere. Now safety: search for "
        "injury data.",
        'search(query="RiverBike injuries crashes 2025 safety report")',
        "1. Road Safety Report 2025, chapter 6: shared micromobility | rivermouth.gov/safety/report-2025\n"
        "2. E-bike crash on Harbour Bridge | rivermouthherald.com/2025/07/harbour-bridge-crash\n"
        "3. Are shared e-bikes safer than scooters? | urbanmobility.example/blog/ebike-vs-scooter",
        fold('RiverBike monthly trips 2025: winter low (January 98,400; December 119,300), summer peak June 262,100, so winter is about 40% of peak; busiest station Central Station East (96,140 departures); 38% of trips cross districts.'),
    ),
    (
        "The city's road safety report gives a rate I can compare across cities.",
        'open_page(url="rivermouth.gov/safety/report-2025")',
        "Chapter 6. Shared micromobility. Police recorded 37 injury crashes involving RiverBike e-bikes in "
        "2025, of which 4 were serious and none fatal. This is 0.016 injury crashes per 1,000 trips, compared "
        "with 0.061 for rented e-scooters. Most crashes (62%) involved a motor vehicle at a junction. The "
        "city installed 11 km of protected lanes in 2025 and recommends a further 20 km on the routes with "
        "the highest RiverBike flows.",
        fold('Searched RiverBike safety: Rivermouth Road Safety Report 2025, chapter 6, at rivermouth.gov/safety/report-2025.'),
    ),
    (
        "Rivermouth is complete: fleet, trips, prices, concession funding, safety. Fold the whole Rivermouth "
        "investigation into one note and move on to Castellan.",
        'search(query="Castellan bike sharing e-bikes 2025 ridership fleet")',
        "1. Castellan Moves - Annual mobility statistics 2025 | castellan.example/moves/stats-2025\n"
        "2. CycloCastellan: the hybrid system explained | cyclocastellan.example/about\n"
        "   Docked stations in the centre, free-floating zones in the suburbs.\n"
        "3. Castellan bike share funded by billboard deal | castellantimes.example/2023/bikes-billboards\n"
        "4. Comparing European bike share prices 2025 | bikeprices.example/europe-2025",
        fold('Rivermouth (RiverBike), complete: fleet 1,450 e-bikes at 212 stations; 2,310,000 trips in 2025 (+18%), winter about 40% of summer; price 1.20 euros unlock + 0.18 euros/min, monthly pass 24 euros; funding: nine-year Voltway concession worth 14.6 million euros, city pays 1.1 million euros/year availability fee with penalties below 90% availability (committee chair Helga Sorensen; population 410,000); safety: 37 injury crashes, 4 serious, 0 fatal, 0.016 per 1,000 trips (e-scooters 0.061); 62% at junctions with motor vehicles.', start=0),
    ),
    # ---------------------------------------------------------------- sub-task 2: Castellan (8-15)
    (
        "The statistics page of Castellan Moves is the official source.",
        'open_page(url="castellan.example/moves/stats-2025")',
        "Castellan Moves: bike share statistics 2025. CycloCastellan fleet: 3,200 bikes, of which 2,600 are "
        "e-bikes and 600 classic bikes. 305 docking stations in the centre and 14 free-floating zones in the "
        "outer districts. Total trips: 5,940,000 (2024: 5,310,000). Average trip: 2.9 km. Registered users: "
        "118,000. Bikes are rebalanced by 22 cargo vans and 6 electric cargo trikes. Average e-bike battery "
        "swap interval: 2.3 days. The system serves a population of 780,000.",
        fold('Searched Castellan: official statistics at castellan.example/moves/stats-2025; CycloCastellan is hybrid (docked centre, free-floating suburbs); funded by a billboard deal (castellantimes.example/2023/bikes-billboards).'),
    ),
    (
        "Fleet and trips noted. Castellan's pricing is different; the about page should explain it.",
        'open_page(url="cyclocastellan.example/about")',
        "How CycloCastellan works. Pay as you go: 2.50 euros for each 30 minutes on an e-bike, 1.00 euro for "
        "each 30 minutes on a classic bike. Annual membership: 79 euros, which makes the first 30 minutes of "
        "every ride free (classic) or 0.50 euros (e-bike). Bikes can be returned to any station in the "
        "centre, or parked inside a free-floating zone (white paint marks on the pavement). A 'return "
        "outside zone' fee of 20 euros applies. The system runs 24 hours a day; e-bikes are limited to "
        "25 km/h.",
        fold('Castellan statistics 2025: CycloCastellan fleet 3,200 bikes (2,600 e-bikes, 600 classic), 305 stations + 14 free-floating zones; 5,940,000 trips (2024: 5,310,000), 2.9 km average; 118,000 users; population 780,000.'),
    ),
    (
        "Now the funding: the Times headline mentions billboards.",
        'open_page(url="castellantimes.example/2023/bikes-billboards")',
        "Castellan's bike share funded by billboard deal. Castellan will not pay a cent for its new bike "
        "share, officials say. Under a twelve-year contract signed with Mirela Outdoor Media, the company "
        "builds and runs CycloCastellan in exchange for the right to sell advertising on 420 city-owned "
        "billboards and bus shelters. The city also earmarks 0.8% of on-street parking revenue, about 2.4 "
        "million euros a year, for stations and maintenance of protected lanes. Critics note that the "
        "advertising rights were valued at 9 million euros a year by an independent appraiser, far more "
        "than the system's running costs.",
        fold('CycloCastellan prices: pay as you go 2.50 euros per 30 min (e-bike), 1.00 euro (classic); annual membership 79 euros, then first 30 min 0.50 euros on an e-bike; 20 euros fee for returns outside a zone; open 24 h.'),
    ),
    (
        "I want a second source on whether the advertising model is stable, because it is the most unusual "
        "of the three.",
        'search(query="Mirela Outdoor Media CycloCastellan contract renegotiation 2025")',
        "1. Ad slump forces bike share talks | castellantimes.example/2025/05/ad-slump-bike-talks\n"
        "   Falling billboard revenue pushed the operator to ask for a subsidy.\n"
        "2. Mirela Outdoor Media half-year results | mirela.example/investors/h1-2025\n"
        "3. CycloCastellan station closures in Vallon district | castellantimes.example/2025/09/vallon",
        fold('Castellan funding: twelve-year contract with Mirela Outdoor Media, which builds and runs the system in exchange for advertising on 420 city-owned billboards and bus shelters; city adds 0.8% of parking revenue (about 2.4 million euros/year); ad rights valued at 9 million euros/year.'),
    ),
    (
        "Read the article about the renegotiation.",
        'open_page(url="castellantimes.example/2025/05/ad-slump-bike-talks")',
        "Ad slump forces bike share talks. Falling billboard income has pushed Mirela Outdoor Media to ask "
        "Castellan for a direct subsidy of 1.5 million euros a year, the first since the system opened. "
        "Outdoor advertising revenue in the region fell 17% in 2024. Deputy mayor Ana Bettencourt said the "
        "city would 'not reward a bad bet' but agreed to talks. In September the operator closed 9 stations "
        "in the Vallon district, citing low use.",
        fold('Searched the Mirela contract: an ad slump forced talks (castellantimes.example/2025/05/ad-slump-bike-talks); station closures in Vallon.'),
    ),
    (
        "Safety data for Castellan: search the city's figures.",
        'search(query="Castellan bike share injury crashes per 1000 trips 2025")',
        "1. Castellan road safety observatory 2025 | castellan.example/safety/observatory-2025\n"
        "2. Why Castellan's cyclists wear helmets less | castellantimes.example/2025/helmets",
        fold('Ad slump: Mirela Outdoor Media asked Castellan for a subsidy of 1.5 million euros a year (regional outdoor ad revenue -17% in 2024); deputy mayor Ana Bettencourt agreed to talks; 9 Vallon stations closed in September.'),
    ),
    (
        "Open the observatory report for the crash rate.",
        'open_page(url="castellan.example/safety/observatory-2025")',
        "Road safety observatory 2025. Shared bikes: 161 injury crashes in 2025, 19 serious, 1 fatal (a "
        "collision with a delivery lorry on Avenida do Porto). Rate: 0.027 injury crashes per 1,000 trips. "
        "The free-floating suburbs show a rate twice that of the docked centre, which the observatory links "
        "to the lack of protected lanes on arterial roads.",
        fold('Searched Castellan safety: road safety observatory 2025 at castellan.example/safety/observatory-2025.'),
    ),
    (
        "Castellan is complete. Before consolidating, one calculation for the comparison table: trips per "
        "bike per day.",
        'calculate(expression="5940000 / 3200 / 365")',
        "5.0856",
        fold("Castellan safety 2025: 161 injury crashes, 19 serious, 1 fatal; 0.027 per 1,000 trips; free-floating suburbs twice the docked centre's rate (no protected lanes)."),
    ),
    # ---------------------------------------------------------------- sub-task 3: Norby (16-23)
    (
        "About 5.1 trips per bike per day in Castellan, and Castellan is finished: fold its notes into one. "
        "Now Norby, the smallest city, closest in size to Aldmere.",
        'search(query="Norby e-bike share program 2025 regional transit")',
        "1. NorbyCykel - Norby Regional Transit | nrt.example/norbycykel\n"
        "2. NorbyCykel pilot becomes permanent | norbyposten.example/2024/norbycykel-permanent\n"
        "3. NRT annual report 2025 (PDF) | nrt.example/reports/annual-2025.pdf\n"
        "4. Small-city bike share: lessons from Norby | smallcities.example/cases/norby",
        fold('Castellan (CycloCastellan), complete: 3,200 bikes (2,600 e-bikes), 305 stations + 14 zones; 5,940,000 trips in 2025, about 5.1 trips per bike per day; population 780,000; price 2.50 euros per 30 min on an e-bike or 79 euros/year membership; funding: twelve-year advertising contract with Mirela Outdoor Media on 420 city-owned billboards and bus shelters plus 2.4 million euros/year of parking revenue; risk: Mirela asked for a 1.5 million euros/year subsidy after a 17% ad slump, 9 stations closed; safety: 161 injury crashes, 19 serious, 1 fatal, 0.027 per 1,000 trips.', start=7),
    ),
    (
        "Start with the operator page for the basics.",
        'open_page(url="nrt.example/norbycykel")',
        "NorbyCykel is run by Norby Regional Transit (NRT) as part of the public transport network. 640 "
        "e-bikes at 58 stations, most of them at bus and train stops. Residents with an NRT travel card ride "
        "the first 30 minutes free; after that, 1 euro per 15 minutes. Visitors pay 2 euros to unlock plus "
        "the same time fare. Bikes have studded tyres from November to March and the system stays open "
        "all winter.",
        fold('Searched Norby: NorbyCykel is run by Norby Regional Transit (nrt.example/norbycykel); NRT annual report 2025 PDF; pilot made permanent in 2024; small-city case study.'),
    ),
    (
        "Ridership and funding should be in the NRT annual report.",
        'open_page(url="nrt.example/reports/annual-2025.pdf")',
        "NRT Annual Report 2025, section 4.3 NorbyCykel. Trips: 741,000 (2024: 602,000), of which 58% "
        "started or ended at a bus or train stop. Operating cost: 3.2 million euros, covered by the regional "
        "transport budget (2.6 million) and fares (0.6 million). Cost per trip: 4.32 euros before fares. "
        "Program director Tomasz Lindqvist writes that the bikes replaced an estimated 210,000 car trips to "
        "stations and allowed NRT to cut two low-use feeder bus lines, saving 0.9 million euros a year.",
        fold('NorbyCykel basics: run by Norby Regional Transit (NRT); 640 e-bikes at 58 stations, mostly at bus and train stops; travel-card holders ride 30 min free, then 1 euro per 15 min; visitors 2 euros unlock; studded tyres, open all winter.'),
    ),
    (
        "The integration with buses is the key feature. Check the pilot history for lessons relevant to Aldmere.",
        'open_page(url="norbyposten.example/2024/norbycykel-permanent")',
        "NorbyCykel pilot becomes permanent. After a two-year pilot that began in April 2022 with 150 bikes, "
        "the regional assembly voted to make NorbyCykel permanent and to quadruple the fleet. The pilot "
        "showed that free first 30 minutes for travel-card holders tripled use among commuters. Winter use "
        "surprised planners: January trips were 55% of the July level, helped by studded tyres and "
        "snow-cleared lanes.",
        fold('NRT Annual Report 2025: NorbyCykel 741,000 trips (2024: 602,000), 58% at bus/train stops; operating cost 3.2 million euros = 2.6 million regional transport budget + 0.6 million fares; 4.32 euros per trip before fares; program director Tomasz Lindqvist; replaced about 210,000 car trips; two feeder bus lines cut, saving 0.9 million euros/year.'),
    ),
    (
        "The case study may have a population figure and a critical view.",
        'open_page(url="smallcities.example/cases/norby")',
        "Lessons from Norby (population 130,000). Norby shows that a small city can run bike share as "
        "public transport rather than as a commercial service. Its weaknesses: a high public cost per trip "
        "and a fleet too small for evening demand at the university campus, where 31% of rental attempts "
        "between 18:00 and 21:00 found no bike. The authors recommend a 1:200 ratio of bikes to residents "
        "for cities under 300,000.",
        fold('NorbyCykel pilot: began April 2022 with 150 bikes, made permanent with the fleet quadrupled; free first 30 min tripled commuter use; January trips 55% of July.'),
    ),
    (
        "Safety figure for Norby to complete the set.",
        'search(query="NorbyCykel injuries 2025")',
        "1. Norby traffic safety 2025: 9 injury crashes involved NorbyCykel bikes, none serious "
        "(0.012 per 1,000 trips) | norby.example/traffic-safety-2025\n"
        "2. Studded tyres cut winter falls | norbyposten.example/2025/studded-tyres",
        fold('Norby case study: population 130,000; weaknesses: high public cost per trip, 31% of evening rentals at the campus found no bike; recommends 1 bike per 200 residents for cities under 300,000.'),
    ),
    (
        "Compute Norby's trips per bike per day for the table.",
        'calculate(expression="741000 / 640 / 365")',
        "3.1721",
        fold('Norby safety 2025: 9 injury crashes involving NorbyCykel, none serious, 0.012 per 1,000 trips.'),
    ),
    (
        "Norby is complete: 3.2 trips per bike per day, publicly funded, best safety. Consolidate the Norby "
        "notes. Next I cross-check Rivermouth's trips per bike, which I have not computed yet.",
        'calculate(expression="2310000 / 1450 / 365")',
        "4.3647",
        fold('Norby (NorbyCykel), complete: public model run by Norby Regional Transit, director Tomasz Lindqvist; 640 e-bikes at 58 stations at bus/train stops; 741,000 trips in 2025, 3.2 per bike per day, January 55% of July; travel card 30 min free, then 1 euro/15 min; cost 3.2 million euros/year (2.6 million regional budget, 0.6 million fares), 4.32 euros per trip, feeder bus savings 0.9 million euros/year; population 130,000, guideline 1 bike per 200 residents; safety best: 9 injury crashes, none serious, 0.012 per 1,000 trips.', start=16),
    ),
    # ---------------------------------------------------------------- sub-task 4: normalise for Aldmere (24-29)
    (
        "For Aldmere I need its own numbers: population is given as 240,000; I need its current cycling "
        "share and budget to judge which model is affordable.",
        'search(query="Aldmere mobility plan 2026 cycling modal share budget")',
        "1. Aldmere Sustainable Mobility Plan 2026-2030 | aldmere.example/mobility-plan\n"
        "2. Aldmere budget 2026: transport chapter | aldmere.example/budget-2026/transport\n"
        "3. Aldmere cyclists demand more lanes | aldmerenews.example/2025/lanes-protest",
        fold('Rivermouth check: 2,310,000 trips / 1,450 bikes / 365 = 4.36 trips per bike per day.'),
    ),
    (
        "Read the mobility plan for the cycling share and targets.",
        'open_page(url="aldmere.example/mobility-plan")',
        "Sustainable Mobility Plan 2026-2030. Cycling accounts for 6% of trips today; the target is 12% by "
        "2030. The city has 34 km of protected cycle lanes and plans 40 km more. Public transport: 19 bus "
        "lines and one tram line; 23% of residents live within 400 m of the tram. Winters are cold: an "
        "average of 41 days a year with snow cover. The plan lists 'a public e-bike share integrated with "
        "the tram' as measure M7.",
        fold('Searched Aldmere: Sustainable Mobility Plan 2026-2030 (aldmere.example/mobility-plan) and budget 2026 transport chapter.'),
    ),
    (
        "Now the money available: the transport chapter of the budget.",
        'open_page(url="aldmere.example/budget-2026/transport")',
        "Budget 2026, transport. Capital budget for cycling: 6.5 million euros over 2026-2028. Operating "
        "budget available for new mobility services: up to 1.4 million euros a year from 2027. The tram "
        "operator, Aldmere Transit, is wholly owned by the city. Council has ruled out new advertising "
        "contracts on street furniture after a 2022 referendum.",
        fold('Aldmere mobility plan: cycling 6% of trips, target 12% by 2030; 34 km protected lanes, 40 km more planned; 19 bus lines and one tram (23% of residents within 400 m); 41 snow days a year; measure M7 is a public e-bike share integrated with the tram.'),
    ),
    (
        "The referendum rules out Castellan's billboard model for Aldmere. Size a fleet with the case "
        "study's 1:200 ratio.",
        'calculate(expression="240000 / 200")',
        "1200",
        fold("Aldmere budget 2026: cycling capital 6.5 million euros for 2026-2028; operating budget up to 1.4 million euros/year from 2027; tram operator Aldmere Transit is city-owned; a 2022 referendum bans advertising contracts on street furniture, ruling out Castellan's model."),
    ),
    (
        "A 1,200-bike system. Estimate its yearly operating cost at Norby's cost per bike as a check "
        "against the 1.4 million budget.",
        'calculate(expression="3200000 / 640 * 1200")',
        "6000000",
        fold('Aldmere fleet at 1 bike per 200 residents: 240,000 / 200 = 1,200 bikes.'),
    ),
    (
        "Six million a year at Norby's cost per bike is far above 1.4 million, so Aldmere needs fares and "
        "a phased fleet. Check a phased start of 500 bikes with fares covering 20% as in Norby.",
        'calculate(expression="3200000 / 640 * 500 * 0.81")',
        "2025000",
        fold("1,200 bikes at Norby's cost per bike (3.2 million / 640) = 6,000,000 euros/year, far above the 1.4 million budget."),
    ),
    # ---------------------------------------------------------------- sub-task 5: write (30-33)
    (
        "Even a 500-bike start costs about 2.0 million after fares, above the 1.4 million operating budget, "
        "unless feeder bus savings like Norby's are counted. I have what I need: draft the briefing from the "
        "notes (folding the Aldmere calculations into one), then verify figures against the sources.",
        'open_page(url="bikeprices.example/europe-2025")',
        "European bike share prices 2025. Median price of a 20-minute e-bike ride in 38 cities: 2.90 euros. "
        "Median annual membership: 85 euros. Cheapest: Norby (free for 30 minutes with a travel card). Most "
        "expensive per minute: Rivermouth among systems without membership, owing to its per-minute fare.",
        fold("Aldmere, complete: population 240,000, cycling 6% (target 12%), cold winters, city-owned Aldmere Transit, 2022 referendum bans street-furniture ads; budget 6.5 million euros capital and up to 1.4 million euros/year operating; full fleet 1,200 bikes would cost 6,000,000 euros/year at Norby's cost per bike; a 500-bike start with fares covering about 20% costs 2,025,000 euros/year. Rivermouth check: 4.36 trips per bike per day.", start=23),
    ),
    (
        "The price survey confirms the price ranking. Compute a 20-minute Rivermouth ride for the table.",
        'calculate(expression="1.20 + 0.18 * 20")',
        "4.8",
        fold('Price survey 2025: median 20-minute e-bike ride 2.90 euros in 38 cities, median membership 85 euros; Norby cheapest (30 min free with a travel card); Rivermouth most expensive per minute.'),
    ),
    (
        "Draft: Norby's model fits Aldmere best - a small city, cold winters, a city-owned transit operator "
        "and an advertising ban. Recommend a NorbyCykel-style system run by Aldmere Transit, starting with "
        "500 e-bikes at tram stops, with a Rivermouth-style availability penalty if an operator is "
        "contracted. Final check of the recommendation's budget logic.",
        'calculate(expression="2025000 - 900000 * 500 / 640")',
        "1321875",
        fold('A 20-minute Rivermouth ride costs 1.20 + 0.18 x 20 = 4.80 euros.'),
    ),
    (
        "With feeder-bus savings scaled to 500 bikes, the net cost is about 1.32 million a year, within the "
        "1.4 million budget. Submit the briefing.",
        'finish(answer="Briefing: copy Norby\'s public, transit-integrated model; start with 500 e-bikes at '
        'tram stops, grow towards 1,200; net cost about 1.32 million euros a year after fares and feeder-bus '
        'savings, within the 1.4 million budget. Castellan\'s billboard model is ruled out by the 2022 '
        'referendum; Rivermouth\'s concession is costlier per trip for the city.")',
        "Answer submitted.",
        fold('Budget check: 2,025,000 minus feeder-bus savings scaled to 500 bikes = 1,321,875 euros/year, within the 1.4 million budget; recommendation: Norby-style public system run by Aldmere Transit, 500 e-bikes at tram stops.'),
    ),
]

def _ranged(t, step):
    th, ac, ob, directive = step
    if directive is None:
        return step
    start = t - 1 if directive["start"] is None else directive["start"]
    return (th, ac, ob, {"range": [start, t - 1], "summary": directive["summary"]})


STEPS = [_ranged(t, step) for t, step in enumerate(STEPS)]

PROBES = [
    (29, "How many e-bikes did RiverBike operate in 2025?", "1,450", 1),
    (20, "Which councillor chairs Rivermouth's mobility committee?", "Helga Sorensen", 3),
    (24, "How many billboards and shelters does Castellan's advertising contract cover?", "420 city-owned", 10),
    (30, "How many trips did CycloCastellan record in 2025?", "5,940,000", 8),
    (31, "Who directs the NorbyCykel program?", "Tomasz Lindqvist", 18),
    (33, "What is the total value of Rivermouth's concession?", "14.6 million", 3),
    (32, "What subsidy did Mirela Outdoor Media ask Castellan for?", "1.5 million", 12),
]
