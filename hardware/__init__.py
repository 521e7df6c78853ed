"""The table's control panel on the Raspberry Pi's GPIO, through gpiozero."""
