# scratch: python2 leftovers
print "hello"
