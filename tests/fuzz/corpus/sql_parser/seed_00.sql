CREATE TABLE IF NOT EXISTS test_binary (
    date VARCHAR NOT NULL,
    dist_mem VARBINARY,
    CONSTRAINT test_binary_pk PRIMARY KEY (date)
) SALT_BUCKETS=6;