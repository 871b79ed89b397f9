CREATE TABLE verified_orders (
    trade_order_id BIGINT, item_id BIGINT, item_price DOUBLE, dt STRING,
    PRIMARY KEY (dt, trade_order_id, item_id) NOT ENFORCED
) PARTITIONED BY (dt) WITH ('bucket' = '16');