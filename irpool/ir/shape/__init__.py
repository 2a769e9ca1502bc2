"""--shape: the dims OpenVINO's reshape gives every port of a net."""
