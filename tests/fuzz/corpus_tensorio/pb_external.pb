j
locationw.binp