# man: placeholder
