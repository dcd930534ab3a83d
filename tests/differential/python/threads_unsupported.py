import threading
print(threading.current_thread().name, threading.active_count())
lock = threading.Lock()
with lock:
    print("lock held", lock.locked())
print(lock.locked())
