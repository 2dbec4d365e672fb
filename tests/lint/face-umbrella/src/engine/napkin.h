/* napkin.h: fixture umbrella that includes nothing */
