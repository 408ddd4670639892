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

# (thought, action, observation, fold)
C = {"op": "condense"}


def consolidate(start):
    return {"op": "consolidate", "from": start}


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
        C,
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
        C,
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
        C,
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
        C,
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
        C,
    ),
    (
        "Winter months are about 40% of the summer peak, which is useful for Aldmere. Now safety: search for "
        "injury data.",
        'search(query="RiverBike injuries crashes 2025 safety report")',
        "1. Road Safety Report 2025, chapter 6: shared micromobility | rivermouth.gov/safety/report-2025\n"
        "2. E-bike crash on Harbour Bridge | rivermouthherald.com/2025/07/harbour-bridge-crash\n"
        "3. Are shared e-bikes safer than scooters? | urbanmobility.example/blog/ebike-vs-scooter",
        C,
    ),
    (
        "The city's road safety report gives a rate I can compare across cities.",
        'open_page(url="rivermouth.gov/safety/report-2025")',
        "Chapter 6. Shared micromobility. Police recorded 37 injury crashes involving RiverBike e-bikes in "
        "2025, of which 4 were serious and none fatal. This is 0.016 injury crashes per 1,000 trips, compared "
        "with 0.061 for rented e-scooters. Most crashes (62%) involved a motor vehicle at a junction. The "
        "city installed 11 km of protected lanes in 2025 and recommends a further 20 km on the routes with "
        "the highest RiverBike flows.",
        C,
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
        consolidate(0),
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
        C,
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
        C,
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
        C,
    ),
    (
        "I want a second source on whether the advertising model is stable, because it is the most unusual "
        "of the three.",
        'search(query="Mirela Outdoor Media CycloCastellan contract renegotiation 2025")',
        "1. Ad slump forces bike share talks | castellantimes.example/2025/05/ad-slump-bike-talks\n"
        "   Falling billboard revenue pushed the operator to ask for a subsidy.\n"
        "2. Mirela Outdoor Media half-year results | mirela.example/investors/h1-2025\n"
        "3. CycloCastellan station closures in Vallon district | castellantimes.example/2025/09/vallon",
        C,
    ),
    (
        "Read the article about the renegotiation.",
        'open_page(url="castellantimes.example/2025/05/ad-slump-bike-talks")',
        "Ad slump forces bike share talks. Falling billboard income has pushed Mirela Outdoor Media to ask "
        "Castellan for a direct subsidy of 1.5 million euros a year, the first since the system opened. "
        "Outdoor advertising revenue in the region fell 17% in 2024. Deputy mayor Ana Bettencourt said the "
        "city would 'not reward a bad bet' but agreed to talks. In September the operator closed 9 stations "
        "in the Vallon district, citing low use.",
        C,
    ),
    (
        "Safety data for Castellan: search the city's figures.",
        'search(query="Castellan bike share injury crashes per 1000 trips 2025")',
        "1. Castellan road safety observatory 2025 | castellan.example/safety/observatory-2025\n"
        "2. Why Castellan's cyclists wear helmets less | castellantimes.example/2025/helmets",
        C,
    ),
    (
        "Open the observatory report for the crash rate.",
        'open_page(url="castellan.example/safety/observatory-2025")',
        "Road safety observatory 2025. Shared bikes: 161 injury crashes in 2025, 19 serious, 1 fatal (a "
        "collision with a delivery lorry on Avenida do Porto). Rate: 0.027 injury crashes per 1,000 trips. "
        "The free-floating suburbs show a rate twice that of the docked centre, which the observatory links "
        "to the lack of protected lanes on arterial roads.",
        C,
    ),
    (
        "Castellan is complete. Before consolidating, one calculation for the comparison table: trips per "
        "bike per day.",
        'calculate(expression="5940000 / 3200 / 365")',
        "5.0856",
        C,
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
        consolidate(7),
    ),
    (
        "Start with the operator page for the basics.",
        'open_page(url="nrt.example/norbycykel")',
        "NorbyCykel is run by Norby Regional Transit (NRT) as part of the public transport network. 640 "
        "e-bikes at 58 stations, most of them at bus and train stops. Residents with an NRT travel card ride "
        "the first 30 minutes free; after that, 1 euro per 15 minutes. Visitors pay 2 euros to unlock plus "
        "the same time fare. Bikes have studded tyres from November to March and the system stays open "
        "all winter.",
        C,
    ),
    (
        "Ridership and funding should be in the NRT annual report.",
        'open_page(url="nrt.example/reports/annual-2025.pdf")',
        "NRT Annual Report 2025, section 4.3 NorbyCykel. Trips: 741,000 (2024: 602,000), of which 58% "
        "started or ended at a bus or train stop. Operating cost: 3.2 million euros, covered by the regional "
        "transport budget (2.6 million) and fares (0.6 million). Cost per trip: 4.32 euros before fares. "
        "Program director Tomasz Lindqvist writes that the bikes replaced an estimated 210,000 car trips to "
        "stations and allowed NRT to cut two low-use feeder bus lines, saving 0.9 million euros a year.",
        C,
    ),
    (
        "The integration with buses is the key feature. Check the pilot history for lessons relevant to Aldmere.",
        'open_page(url="norbyposten.example/2024/norbycykel-permanent")',
        "NorbyCykel pilot becomes permanent. After a two-year pilot that began in April 2022 with 150 bikes, "
        "the regional assembly voted to make NorbyCykel permanent and to quadruple the fleet. The pilot "
        "showed that free first 30 minutes for travel-card holders tripled use among commuters. Winter use "
        "surprised planners: January trips were 55% of the July level, helped by studded tyres and "
        "snow-cleared lanes.",
        C,
    ),
    (
        "The case study may have a population figure and a critical view.",
        'open_page(url="smallcities.example/cases/norby")',
        "Lessons from Norby (population 130,000). Norby shows that a small city can run bike share as "
        "public transport rather than as a commercial service. Its weaknesses: a high public cost per trip "
        "and a fleet too small for evening demand at the university campus, where 31% of rental attempts "
        "between 18:00 and 21:00 found no bike. The authors recommend a 1:200 ratio of bikes to residents "
        "for cities under 300,000.",
        C,
    ),
    (
        "Safety figure for Norby to complete the set.",
        'search(query="NorbyCykel injuries 2025")',
        "1. Norby traffic safety 2025: 9 injury crashes involved NorbyCykel bikes, none serious "
        "(0.012 per 1,000 trips) | norby.example/traffic-safety-2025\n"
        "2. Studded tyres cut winter falls | norbyposten.example/2025/studded-tyres",
        C,
    ),
    (
        "Compute Norby's trips per bike per day for the table.",
        'calculate(expression="741000 / 640 / 365")',
        "3.1721",
        C,
    ),
    (
        "Norby is complete: 3.2 trips per bike per day, publicly funded, best safety. Consolidate the Norby "
        "notes. Next I cross-check Rivermouth's trips per bike, which I have not computed yet.",
        'calculate(expression="2310000 / 1450 / 365")',
        "4.3647",
        consolidate(16),
    ),
    # ---------------------------------------------------------------- sub-task 4: normalise for Aldmere (24-29)
    (
        "For Aldmere I need its own numbers: population is given as 240,000; I need its current cycling "
        "share and budget to judge which model is affordable.",
        'search(query="Aldmere mobility plan 2026 cycling modal share budget")',
        "1. Aldmere Sustainable Mobility Plan 2026-2030 | aldmere.example/mobility-plan\n"
        "2. Aldmere budget 2026: transport chapter | aldmere.example/budget-2026/transport\n"
        "3. Aldmere cyclists demand more lanes | aldmerenews.example/2025/lanes-protest",
        C,
    ),
    (
        "Read the mobility plan for the cycling share and targets.",
        'open_page(url="aldmere.example/mobility-plan")',
        "Sustainable Mobility Plan 2026-2030. Cycling accounts for 6% of trips today; the target is 12% by "
        "2030. The city has 34 km of protected cycle lanes and plans 40 km more. Public transport: 19 bus "
        "lines and one tram line; 23% of residents live within 400 m of the tram. Winters are cold: an "
        "average of 41 days a year with snow cover. The plan lists 'a public e-bike share integrated with "
        "the tram' as measure M7.",
        C,
    ),
    (
        "Now the money available: the transport chapter of the budget.",
        'open_page(url="aldmere.example/budget-2026/transport")',
        "Budget 2026, transport. Capital budget for cycling: 6.5 million euros over 2026-2028. Operating "
        "budget available for new mobility services: up to 1.4 million euros a year from 2027. The tram "
        "operator, Aldmere Transit, is wholly owned by the city. Council has ruled out new advertising "
        "contracts on street furniture after a 2022 referendum.",
        C,
    ),
    (
        "The referendum rules out Castellan's billboard model for Aldmere. Size a fleet with the case "
        "study's 1:200 ratio.",
        'calculate(expression="240000 / 200")',
        "1200",
        C,
    ),
    (
        "A 1,200-bike system. Estimate its yearly operating cost at Norby's cost per bike as a check "
        "against the 1.4 million budget.",
        'calculate(expression="3200000 / 640 * 1200")',
        "6000000",
        C,
    ),
    (
        "Six million a year at Norby's cost per bike is far above 1.4 million, so Aldmere needs fares and "
        "a phased fleet. Check a phased start of 500 bikes with fares covering 20% as in Norby.",
        'calculate(expression="3200000 / 640 * 500 * 0.81")',
        "2025000",
        C,
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
        consolidate(23),
    ),
    (
        "The price survey confirms the price ranking. Compute a 20-minute Rivermouth ride for the table.",
        'calculate(expression="1.20 + 0.18 * 20")',
        "4.8",
        C,
    ),
    (
        "Draft: Norby's model fits Aldmere best - a small city, cold winters, a city-owned transit operator "
        "and an advertising ban. Recommend a NorbyCykel-style system run by Aldmere Transit, starting with "
        "500 e-bikes at tram stops, with a Rivermouth-style availability penalty if an operator is "
        "contracted. Final check of the recommendation's budget logic.",
        'calculate(expression="2025000 - 900000 * 500 / 640")',
        "1321875",
        C,
    ),
    (
        "With feeder-bus savings scaled to 500 bikes, the net cost is about 1.32 million a year, within the "
        "1.4 million budget. Submit the briefing.",
        'finish(answer="Briefing: copy Norby\'s public, transit-integrated model; start with 500 e-bikes at '
        'tram stops, grow towards 1,200; net cost about 1.32 million euros a year after fares and feeder-bus '
        'savings, within the 1.4 million budget. Castellan\'s billboard model is ruled out by the 2022 '
        'referendum; Rivermouth\'s concession is costlier per trip for the city.")',
        "Answer submitted.",
        C,
    ),
]

PROBES = [
    (29, "How many e-bikes did RiverBike operate in 2025?", "1,450", 1),
    (20, "Which councillor chairs Rivermouth's mobility committee?", "Helga Sorensen", 3),
    (24, "How many billboards and shelters does Castellan's advertising contract cover?", "420 city-owned", 10),
    (30, "How many trips did CycloCastellan record in 2025?", "5,940,000", 8),
    (31, "Who directs the NorbyCykel program?", "Tomasz Lindqvist", 18),
    (33, "What is the total value of Rivermouth's concession?", "14.6 million", 3),
    (32, "What subsidy did Mirela Outdoor Media ask Castellan for?", "1.5 million", 12),
]
