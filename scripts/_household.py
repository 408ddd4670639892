"""Content of the bundled scenario ``household`` (HiAgent), in the style of ALFWorld."""

QUERY = (
    "You are in the middle of a kitchen. Your task is to: put a clean mug in the coffee machine, and put a "
    "chilled slice of apple on a plate on the dining table."
)

TOOLS = [
    "go to <receptacle>: walk to a receptacle",
    "open <receptacle> / close <receptacle>",
    "take <object> from <receptacle> / put <object> in/on <receptacle>",
    "clean <object> with <sinkbasin>, cool <object> with <fridge>, slice <object> with <knife>",
    "examine <object or receptacle>, inventory, look",
]

ROOM = (
    "Looking quickly around you, you see a cabinet 1, a cabinet 2, a cabinet 3, a cabinet 4, a cabinet 5, "
    "a cabinet 6, a coffeemachine 1, a countertop 1, a countertop 2, a countertop 3, a diningtable 1, a "
    "drawer 1, a drawer 2, a drawer 3, a fridge 1, a garbagecan 1, a microwave 1, a shelf 1, a shelf 2, a "
    "sinkbasin 1, a stoveburner 1, a stoveburner 2, a stoveburner 3, a stoveburner 4 and a toaster 1."
)

# (thought, action, observation, extra fields)
STEPS = [
    # ---------------------------------------------------------------- subgoals 1–3: find a mug, check the fridge, find a mug in the cabinets
    (
        "The task has two parts. First I need a mug. Mugs are usually in cabinets or on the countertops, "
        "so I will look at the room and then check those places one by one.",
        "look",
        "You are in the middle of a kitchen. " + ROOM,
        {"subgoal": "Find a mug"},
    ),
    (
        "Countertop 1 is closest to the coffee machine; people often leave mugs there.",
        "go to countertop 1",
        "You arrive at countertop 1. On the countertop 1, you see a creditcard 1, a peppershaker 3, a "
        "winebottle 1 and a papertowelroll 1.",
        {},
    ),
    (
        "No mug on countertop 1. Countertop 2 is next to it.",
        "go to countertop 2",
        "You arrive at countertop 2. On the countertop 2, you see a bread 1, a butterknife 1, a "
        "saltshaker 2, a spatula 2 and a tomato 1.",
        {},
    ),
    (
        "Still no mug, but I noted the butterknife on countertop 2; it may be useful for the apple later. "
        "The fridge might hold the apple, so I will check it on the way to the cabinets.",
        "go to fridge 1",
        "You arrive at fridge 1. The fridge 1 is closed.",
        {"subgoal": "Check the fridge for an apple"},
    ),
    (
        "Open the fridge to see what is inside.",
        "open fridge 1",
        "You open the fridge 1. The fridge 1 is open. In it, you see a egg 2, a lettuce 1, a plate 1, a "
        "potato 3 and a cup 1.",
        {},
    ),
    (
        "There is a plate in the fridge (I will need a plate at the end) but no apple and no mug. Close "
        "it and try the cabinets, starting with cabinet 1.",
        "close fridge 1",
        "You close the fridge 1.",
        {},
    ),
    (
        "No apple in the fridge. Back to the mug: cabinet 1 is above the coffee machine.",
        "go to cabinet 1",
        "You arrive at cabinet 1. The cabinet 1 is closed.",
        {"subgoal": "Find a mug in the cabinets"},
    ),
    (
        "Open it.",
        "open cabinet 1",
        "You open the cabinet 1. The cabinet 1 is open. In it, you see a bowl 2 and a glassbottle 1.",
        {},
    ),
    (
        "No mug. Cabinet 2 is next.",
        "go to cabinet 2",
        "You arrive at cabinet 2. The cabinet 2 is closed.",
        {},
    ),
    (
        "Open cabinet 2.",
        "open cabinet 2",
        "You open the cabinet 2. The cabinet 2 is open. In it, you see a mug 2 and a dishsponge 1.",
        {},
    ),
    (
        "Found a mug. Take it; the first subgoal is done.",
        "take mug 2 from cabinet 2",
        "You pick up the mug 2 from the cabinet 2.",
        {"subgoal_done": True},
    ),
    # ---------------------------------------------------------------- subgoal 4: clean the mug, put it in the coffee machine
    (
        "Next subgoal: the mug must be clean before it goes into the coffee machine. Examine it first.",
        "examine mug 2",
        "This is a normal mug 2. It has a brown coffee stain on the inside.",
        {"subgoal": "Clean the mug and put it in the coffee machine"},
    ),
    (
        "It is dirty. Go to the sink.",
        "go to sinkbasin 1",
        "You arrive at sinkbasin 1. On the sinkbasin 1, you see a fork 1 and a lettuce 2.",
        {},
    ),
    (
        "Clean the mug with the sink.",
        "clean mug 2 with sinkbasin 1",
        "You clean the mug 2 using the sinkbasin 1.",
        {},
    ),
    (
        "Now carry it to the coffee machine.",
        "go to coffeemachine 1",
        "You arrive at coffeemachine 1. On the coffeemachine 1, you see nothing.",
        {},
    ),
    (
        "Put the clean mug in the coffee machine; that finishes the first half of the task.",
        "put mug 2 in/on coffeemachine 1",
        "You put the mug 2 in/on the coffeemachine 1.",
        {"subgoal_done": True},
    ),
    # ---------------------------------------------------------------- subgoal 5: find an apple and a knife
    (
        "Second half: I need an apple and something to slice it with. I saw a butterknife while searching "
        "for the mug; retrieve(1, 3) brings back both parts of that search in full to see where exactly.",
        "inventory",
        "You are not carrying anything.",
        {"subgoal": "Find an apple and a knife", "directives": {"retrieve": [1, 3]}},
    ),
    (
        "Apples are often on the dining table or in the microwave. Check the dining table first.",
        "go to diningtable 1",
        "You arrive at diningtable 1. On the diningtable 1, you see a houseplant 1, a newspaper 2, a "
        "saltshaker 1 and a vase 3.",
        {},
    ),
    (
        "No apple on the table. Try the microwave.",
        "go to microwave 1",
        "You arrive at microwave 1. The microwave 1 is closed.",
        {},
    ),
    (
        "Open the microwave.",
        "open microwave 1",
        "You open the microwave 1. The microwave 1 is open. In it, you see a apple 1 and a mug 1.",
        {},
    ),
    (
        "There is the apple. Take it.",
        "take apple 1 from microwave 1",
        "You pick up the apple 1 from the microwave 1.",
        {},
    ),
    (
        "I still need a knife. The retrieved memory says countertop 2 had a butterknife; drawers may hold "
        "a proper knife, but the butterknife is certain. Go to countertop 2.",
        "go to countertop 2",
        "You arrive at countertop 2. On the countertop 2, you see a bread 1, a butterknife 1, a "
        "saltshaker 2, a spatula 2 and a tomato 1.",
        {},
    ),
    (
        "Put the apple down here so I can slice it, and the second subgoal is ready.",
        "put apple 1 in/on countertop 2",
        "You put the apple 1 in/on the countertop 2.",
        {"subgoal_done": True},
    ),
    # ---------------------------------------------------------------- subgoal 6: slice the apple
    (
        "Subgoal: slice the apple. Take the butterknife first.",
        "take butterknife 1 from countertop 2",
        "You pick up the butterknife 1 from the countertop 2.",
        {"subgoal": "Slice the apple"},
    ),
    (
        "Slice the apple with the butterknife.",
        "slice apple 1 with butterknife 1",
        "You slice the apple 1 with the butterknife 1. You now see a appleslice 1, a appleslice 2 and a "
        "appleslice 3 on the countertop 2.",
        {},
    ),
    (
        "Put the knife down and pick up one slice.",
        "put butterknife 1 in/on countertop 2",
        "You put the butterknife 1 in/on the countertop 2.",
        {},
    ),
    (
        "Take apple slice 1; the slicing subgoal is done.",
        "take appleslice 1 from countertop 2",
        "You pick up the appleslice 1 from the countertop 2.",
        {"subgoal_done": True},
    ),
    # ---------------------------------------------------------------- subgoal 7: chill the slice
    (
        "Subgoal: chill the slice. The fridge is the place to cool things.",
        "go to fridge 1",
        "You arrive at fridge 1. The fridge 1 is closed.",
        {"subgoal": "Chill the apple slice"},
    ),
    (
        "Cool the slice with the fridge.",
        "cool appleslice 1 with fridge 1",
        "You cool the appleslice 1 using the fridge 1.",
        {"subgoal_done": True},
    ),
    # ---------------------------------------------------------------- subgoal 8: plate to the dining table
    (
        "Last subgoal: a plate for the slice. I saw a plate when I checked the fridge; retrieve(2) asks for "
        "that trajectory again, if my memory still holds it.",
        "inventory",
        "You are carrying: a appleslice 1.",
        {"subgoal": "Put the slice on a plate on the dining table", "directives": {"retrieve": [2]}},
    ),
    (
        "The plate was in the fridge. Open it; I am standing next to it.",
        "open fridge 1",
        "You open the fridge 1. The fridge 1 is open. In it, you see a egg 2, a lettuce 1, a plate 1, a "
        "potato 3 and a cup 1.",
        {},
    ),
    (
        "I can only carry one thing, so put the slice on the plate inside first? No - the plate must end up "
        "on the dining table. Put the slice down on the countertop by the fridge, then take the plate.",
        "put appleslice 1 in/on countertop 3",
        "You put the appleslice 1 in/on the countertop 3.",
        {},
    ),
    (
        "Take the plate out of the fridge.",
        "take plate 1 from fridge 1",
        "You pick up the plate 1 from the fridge 1.",
        {},
    ),
    (
        "Carry the plate to the dining table.",
        "go to diningtable 1",
        "You arrive at diningtable 1. On the diningtable 1, you see a houseplant 1, a newspaper 2, a "
        "saltshaker 1 and a vase 3.",
        {},
    ),
    (
        "Put the plate on the table, then fetch the slice.",
        "put plate 1 in/on diningtable 1",
        "You put the plate 1 in/on the diningtable 1.",
        {},
    ),
    (
        "Back to countertop 3 for the chilled slice.",
        "go to countertop 3",
        "You arrive at countertop 3. On the countertop 3, you see a appleslice 1, a soapbottle 2 and a "
        "cellphone 1.",
        {},
    ),
    (
        "Take the slice.",
        "take appleslice 1 from countertop 3",
        "You pick up the appleslice 1 from the countertop 3.",
        {},
    ),
    (
        "Return to the table.",
        "go to diningtable 1",
        "You arrive at diningtable 1. On the diningtable 1, you see a houseplant 1, a newspaper 2, a "
        "plate 1, a saltshaker 1 and a vase 3.",
        {},
    ),
    (
        "Put the chilled slice on the plate. This completes the task.",
        "put appleslice 1 in/on plate 1",
        "You put the appleslice 1 in/on the plate 1. Task complete: a clean mug is in the coffee machine and "
        "a chilled apple slice is on a plate on the dining table.",
        {"subgoal_done": True},
    ),
]

PROBES = [
    (16, "What was on countertop 1?", "winebottle 1", 1),
    (20, "Which cabinet held the bowl?", "bowl 2", 7),
    (26, "What did the mug look like before cleaning?", "coffee stain", 11),
    (30, "Where was the plate?", "plate 1", 4),
    (33, "What else was in the microwave besides the apple?", "mug 1", 19),
]
