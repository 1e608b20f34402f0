print("stress")
