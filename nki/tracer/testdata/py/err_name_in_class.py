class Config:
    SIZES = [1, 2, 3]
    DOUBLED = [s * 2 for s in SIZES]
    print(DOUBLED)
    FACTOR = 3
    SCALED = [s * FACTOR for s in SIZES]
