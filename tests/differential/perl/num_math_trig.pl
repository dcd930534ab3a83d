use strict; use warnings;
use Math::Trig;
printf "%.10f %.10f %.10f %.10f\n", pi, deg2rad(180), rad2deg(pi / 2), tan(pi / 4);
printf "%.10f %.10f %.10f\n", acos(0), asin(1), atan(1);
printf "%.6f %.6f\n", great_circle_distance(deg2rad(-0.1), deg2rad(90 - 51.5), deg2rad(2.35), deg2rad(90 - 48.86)) * 6378, sinh(1);
