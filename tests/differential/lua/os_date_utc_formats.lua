local t = 1700000000
print(os.date("!%Y-%m-%d %H:%M:%S", t))
print(os.date("!%A %a %B %b %h %d %e %j %U %W %V %G %g %u %w", t))
print(os.date("!%c|%x|%X|%D|%F|%T|%R|%r|%p|%I|%y|%C|%%|%n|%t|", t))
print(os.date("!%Ec|%EC|%Ex|%EX|%Ey|%EY|%Od|%Oe|%OH|%OI|%Om|%OM|%OS|%Ou|%OU|%OV|%Ow|%OW|%Oy", t))
print(os.date("!%z %s", t))
print(os.date("!%Y", 0), os.date("!%Y-%m-%d", -86400), os.date("!%Y", 253402300799))
