from napsim.cli import main

main()
