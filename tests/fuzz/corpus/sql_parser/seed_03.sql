INSERT INTO verified_orders SELECT trade_order_id, item_id, item_price,
    DATE_FORMAT(gmt_create, 'yyyy-MM-dd') AS dt FROM raw_orders WHERE order_status = 'verified';