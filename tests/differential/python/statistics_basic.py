import statistics as st
data = [2.5, 3.25, 5.5, 11.25, 11.75, 1.0, 4.0]
print(st.mean(data), st.median(data), st.median_low([1, 3, 5, 7]), st.median_high([1, 3, 5, 7]))
print(st.mode([1, 1, 2, 3, 3, 3]), st.multimode("aabbbccccdd"))
print(round(st.stdev(data), 10), round(st.pvariance(data), 10), st.fmean([1, 2, 3, 4]))
print(st.quantiles([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], n=4))
print(st.harmonic_mean([40, 60]), st.geometric_mean([54, 24, 36]))
