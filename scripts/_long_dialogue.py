"""Content of the bundled scenario ``long_dialogue`` (SCM): a long chat with a personal assistant."""

QUERY = "You are a friendly personal assistant helping the user plan a family trip and a busy month."

# (user, assistant): the user speaks first; each reply answers the message before it
TURNS = [
    (
        "Hi! I'm Marguerite Okafor, but everyone calls me Maggie. I'm hoping you can help me organise a "
        "trip and keep track of a few things for me over the next weeks.",
        "Nice to meet you, Maggie! I'd be glad to help. Tell me about the trip first - where are you going, "
        "who is coming, and what do you already have booked?",
    ),
    (
        "One important thing before anything else: I'm seriously allergic to sesame. Not an intolerance - I "
        "carry an adrenaline pen. So any restaurant or snack suggestion has to take that into account.",
        "Understood, and thank you for telling me straight away. I will treat that allergy as a hard rule "
        "for every food suggestion, and I'll remind you to ask restaurants about cross-contamination, since "
        "the seeds and their oil turn up in breads, dressings and desserts.",
    ),
    (
        "Great. The trip is to Lisbon. We fly out on 14 March and come back on 22 March, eight nights.",
        "Lisbon in mid-March is lovely: usually 15 to 19 degrees during the day, cooler evenings and a "
        "chance of showers, so pack layers and a light rain jacket. Eight nights gives you time for the "
        "city and a couple of day trips.",
    ),
    (
        "It's me and my daughter Ines. She turns nine while we're there, so I want one day to be really "
        "special for her.",
        "A birthday in Lisbon - how exciting for her! We can plan that day around what she loves most. "
        "Does she prefer animals, science, beaches or castles? Lisbon has excellent options for each.",
    ),
    (
        "She is obsessed with sea creatures. Also, for flights I always want an aisle seat - I get "
        "claustrophobic by the window.",
        "Then the Oceanarium is the obvious birthday highlight; it is one of the largest aquariums in Europe "
        "and has a huge central tank. I'll keep your seating preference in mind for any booking or check-in "
        "reminder.",
    ),
    (
        "Budget-wise I'd like to keep the whole trip, excluding flights, under 1,800 euros.",
        "That is realistic for eight nights for two if we choose a mid-range apartment, use public transport "
        "and mix restaurant meals with picnics. Roughly: 900 for accommodation, 450 for food, 250 for "
        "activities and 200 for transport and extras.",
    ),
    (
        "Sounds good. Which neighbourhood should we stay in? I don't want to be climbing hills all day "
        "with a tired kid.",
        "Baixa is flat, central and close to the river, trams and the metro, which makes it easy with a "
        "child. Avenida da Liberdade and Campo de Ourique are calmer alternatives. Alfama is beautiful but "
        "very steep, better for a visit than a base.",
    ),
    (
        "Baixa it is. Can you suggest what to look for in an apartment listing?",
        "Look for a lift or a low floor, a washing machine, a proper kitchen so you can cook safe meals, "
        "double glazing if it faces a busy street, and recent reviews that mention cleanliness and noise. "
        "Free cancellation is worth a small premium.",
    ),
    (
        "Good idea about the kitchen. What are some typical Portuguese dishes my daughter might like?",
        "Children often love bacalhau a bras (shredded cod with eggs and crispy potatoes), frango piri-piri "
        "without the hot sauce, caldo verde soup, and grilled sardines if she likes fish. For treats, "
        "pasteis de nata are famous, though with your allergy it's worth asking each bakery what else they "
        "bake on the same trays.",
    ),
    (
        "Noted. Let's talk day trips. What's possible by train?",
        "Sintra is 40 minutes by train from Rossio station, with palaces and forest gardens. Cascais is "
        "about 40 minutes along the coast from Cais do Sodre, with beaches and a nice promenade. Both work "
        "well as day trips without a car.",
    ),
    (
        "Which one is better for a nine-year-old?",
        "Sintra's Pena Palace looks like a fairy-tale castle and children usually love the colours and the "
        "towers, but it involves a lot of walking uphill. Cascais is more relaxed: beach, rock pools and an "
        "ice cream on the promenade. If you only do one, I'd pick based on her energy that week.",
    ),
    (
        "Maybe both. Changing topic: can you help me remember some work things too? I have a deadline for "
        "a grant report on 6 March.",
        "Of course. Your grant report is due before the trip, which is good timing. Would you like me to "
        "help break it into smaller tasks over the next days so it's finished before you pack?",
    ),
    (
        "Yes please. It has four sections: summary, results, budget and next steps.",
        "Here's a plan: results first, since the others depend on it (two evenings); then the budget "
        "section (one evening); next steps (one evening); and finally the summary, which is easiest to "
        "write last (one evening). That leaves a buffer of two days before the deadline.",
    ),
    (
        "Perfect. My colleague Dev Raman is reviewing the budget section. Remind me to send it to him by 3 March.",
        "Noted: send the budget section to him by 3 March. I'll bring it up when we plan that week.",
    ),
    (
        "Back to Lisbon. What should we do on the first afternoon when we're tired from travelling?",
        "Keep it gentle: a walk through Praca do Comercio to the river, a ride on tram 28 if the queue is "
        "short, and an early dinner near the apartment. Children usually do best with a short first day.",
    ),
    (
        "Is tram 28 worth it or just a tourist trap?",
        "It's crowded in the middle of the day, but early in the morning it's a genuinely fun ride through "
        "old neighbourhoods. Board at Martim Moniz before 9 o'clock to get a seat, and watch for pickpockets.",
    ),
    (
        "What about transport passes?",
        "Get a Navegante card at any metro station. Load it with 24-hour tickets on busy days, or with "
        "pay-as-you-go credit otherwise. Children under 13 travel cheaply with their own card, which needs "
        "a photo and can take a few days, so single tickets may be simpler for her.",
    ),
    (
        "I'd also like to learn a few Portuguese phrases. Can you give me ten useful ones?",
        "Bom dia (good morning), obrigada (thank you, said by a woman), por favor (please), desculpe "
        "(sorry / excuse me), fala ingles? (do you speak English?), quanto custa? (how much is it?), a "
        "conta, por favor (the bill, please), onde fica...? (where is...?), sou alergica a... (I am "
        "allergic to...), and tenha um bom dia (have a nice day).",
    ),
    (
        "That allergy phrase is really useful, thanks. Can you help me write a small card in Portuguese to "
        "show at restaurants?",
        "Here's a card: 'Tenho uma alergia alimentar grave. Por favor, diga-me se o prato contem este "
        "ingrediente ou se foi preparado perto dele. Obrigada.' Add the ingredient's Portuguese name on a "
        "second line, and I'd also write 'Levo uma caneta de adrenalina' so staff know it is serious.",
    ),
    (
        "What's the weather forecast style - do I need an umbrella?",
        "March is one of the wetter spring months, with showers that pass quickly. A compact umbrella and "
        "a waterproof jacket for each of you should cover it. Shoes with good grip matter more: the "
        "polished limestone pavements get slippery when wet.",
    ),
    (
        "Good point about the shoes. Shall we plan the birthday day in detail?",
        "Let's do it: a slow breakfast with a small candle, then the Oceanarium when it opens at 10 to "
        "avoid crowds, lunch at the Parque das Nacoes, the cable car along the river, and a birthday "
        "dinner somewhere she chooses. I can suggest places that are careful with allergies.",
    ),
    (
        "She'd love the cable car. Can we get tickets in advance for the Oceanarium?",
        "Yes, online tickets are available and usually a little cheaper, with a family option. Booking a "
        "timed entry for 10:00 on her birthday means you walk straight in.",
    ),
    (
        "Let's also think about a present. She loves drawing.",
        "A travel sketchbook and a small set of watercolour pencils would be perfect, and she can draw the "
        "fish at the Oceanarium. Lisbon also has lovely stationery shops in Chiado where she could choose "
        "one herself.",
    ),
    (
        "By the way, my sister might join us for the last three days. Does that change anything?",
        "It might: check whether your apartment allows a third guest and has a sofa bed, and whether the "
        "price changes. For the last days, a trip to Cascais would be easy to do together.",
    ),
    (
        "I'll ask the host. Can you summarise the plan so far for the first four days?",
        "Day 1: arrive, gentle walk to the river, early dinner. Day 2: early tram 28, Alfama viewpoints, "
        "afternoon at the Gulbenkian garden. Day 3: Sintra day trip. Day 4: Belem - the monastery, the "
        "tower and the Discoveries monument - then a picnic by the river.",
    ),
    (
        "Belem - aren't the custard tarts there famous?",
        "Very - the bakery near the monastery has made them since 1837 and the queue can be long. Go in the "
        "morning. Given your allergy, ask whether anything with seeds shares their ovens before you buy.",
    ),
    (
        "Will do. Another work thing: I have a dentist appointment on 9 March at 8:30.",
        "Noted: dentist on 9 March at 8:30. That's five days before the flight, so there's time for a "
        "follow-up if needed.",
    ),
    (
        "What should I pack for my daughter to keep her busy on the flight?",
        "Her new sketchbook if you give it early, a downloaded film or two, headphones, a small puzzle book, "
        "snacks you have checked yourself, and chewing gum for take-off and landing. A light cardigan too - "
        "planes are often cold.",
    ),
    (
        "Good. How early should we get to the airport?",
        "For a short European flight, two hours before departure is comfortable with a child, especially "
        "if you're checking a bag. Online check-in the day before lets you confirm your seats.",
    ),
    (
        "Can you recommend a museum for a rainy day?",
        "The Museu Nacional do Azulejo shows centuries of painted tiles and has a beautiful chapel; children "
        "often enjoy finding animals in the tile panels. The Pavilhao do Conhecimento science centre is the "
        "other great rainy-day choice, near the Oceanarium.",
    ),
    (
        "The science centre sounds great for my girl. How long would we need?",
        "Allow two to three hours; it's hands-on and easy to lose track of time. It has a cafe, but bring "
        "safe snacks as a backup.",
    ),
    (
        "I just realised I need travel insurance. What should it cover?",
        "Medical treatment abroad (including emergency allergy treatment), cancellation and curtailment, "
        "lost luggage, and cover for your sister if she joins. As EU travellers you should also bring your "
        "European Health Insurance Cards.",
    ),
    (
        "Good reminder about the health cards. Let's plan days five to eight.",
        "Day 5: Gulbenkian museum in the morning, Estrela garden and basilica in the afternoon. Day 6: the "
        "birthday - Oceanarium, cable car, special dinner. Day 7: Cascais with your sister if she has "
        "arrived. Day 8: the science centre, souvenir shopping and packing.",
    ),
    (
        "I love it. What souvenirs are typical?",
        "Painted tiles, tins of Portuguese sardines in colourful packaging, cork products, a small rooster "
        "of Barcelos, and ceramic swallows. For your daughter, a stuffed octopus from the Oceanarium shop is a "
        "classic.",
    ),
    (
        "Ha, she'd love the octopus. How do tips work in restaurants there?",
        "Tipping is modest in Portugal: rounding up or leaving 5 to 10 percent for good service at a sit-down "
        "meal is appreciated but not obligatory. In cafes, leaving the small change is common.",
    ),
    (
        "Okay. Now, a check on work again - the four report sections, and who is reviewing the budget section "
        "before I send it?",
        "Results first, then the budget section, then next steps, and the summary last. The budget section "
        "goes to Dev Raman for review by 3 March.",
    ),
    (
        "Right. Tonight I'm booking the flights and choosing seats at check-in, and the seat map always makes "
        "me feel claustrophobic. Quick test before I click: what seat type did I say I always want on planes? "
        "I want to see if you're really keeping track! Ha.",
        "An aisle seat - you get claustrophobic by the window. Choose two seats in the same row so your "
        "daughter sits next to you; she can have the middle or the window.",
    ),
    (
        "I'm ordering the birthday cake now for my daughter - she turns nine and I want that day to be "
        "really special for her. The bakery wants her name for the icing: what's my daughter's name again? "
        "Ha, just checking you remember.",
        "Of course - your daughter Ines, who turns nine during the trip. Ask the bakery to confirm the cake "
        "is safe for your allergy too; her name and a big number nine fit on most small cakes.",
    ),
    (
        "Now the flight booking form for the trip to Lisbon: it asks when we fly out and when we come back, "
        "the eight nights in March. Which dates are we flying, then?",
        "You fly out on 14 March and come back on 22 March. Double-check the dates against your holiday at "
        "work before you pay; changing a flight later usually costs a fee.",
    ),
    (
        "Next I'm printing the restaurant card for my serious allergy, the one that makes every restaurant or "
        "snack suggestion take it into account. I need the ingredient for the second line: what exactly is my "
        "allergy? I want to double-check you have it right.",
        "You're allergic to sesame, and it's serious: you carry an adrenaline pen. Print two copies of the "
        "card, one for your bag and one for your phone case.",
    ),
    (
        "Last form tonight: the travel insurance. Everyone calls me Maggie, but it wants my full name as in "
        "my passport, and the whole trip budget excluding flights - accommodation, food and activities. So "
        "what's my surname, and what budget did I set for the trip excluding flights?",
        "Your surname is Okafor, and the budget you set is 1,800 euros excluding flights. Insurers use the "
        "trip cost to set the cancellation cover, so spell your name exactly as in your passport.",
    ),
    (
        "While those forms upload - tell me a joke, something silly about penguins, to cheer me up.",
        "Why don't penguins like talking to strangers at parties? They find it hard to break the ice! "
        "Good luck with the uploads.",
    ),
    (
        "Brilliant, thank you. I think we're all set. I'll come back after the trip to tell you how it went!",
        "Have a wonderful time in Lisbon, Maggie, and a very happy birthday to Ines. I'd love to hear how "
        "the Oceanarium and the cable car go!",
    ),
]

# (question turn, question, answer, evidence turn). The question is asked in the user's message of that
# turn; the importer (stmviz.scenarios.from_dialogue) makes user message k the input of step k and reply k
# the output of step k + 1, so the probe checks π(ω_{k+1}), the input from which the reply is produced, and
# its evidence step is the turn whose user message states the fact. make_scenarios.py turns these into
# probes {"t": k + 1, "evidence_step": ...}. Each question message also names its topic in the user's own
# words (seats, the cake, the booking form, the restaurant card, the insurance form), as people do.
QUESTIONS = [
    (35, "Who reviews the budget section of the grant report?", "Dev Raman", 13),
    (36, "Which seat does the user want on planes?", "aisle seat", 4),
    (37, "What is the name of the user's daughter?", "daughter Ines", 3),
    (38, "On which date does the user fly out?", "14 March", 2),
    (39, "What is the user allergic to?", "sesame", 1),
    (40, "What is the user's surname?", "Okafor", 0),
    (40, "What budget did the user set, excluding flights?", "1,800", 5),
]
