p GC.respond_to?(:start), ObjectSpace.respond_to?(:each_object), 1.object_id == 1.object_id
p RUBY_ENGINE, __method__.inspect, __LINE__, [__FILE__ == $0].size
def m = __method__
p m
