-- placeholder, replaced in the foundation change
SELECT 1;
