INSERT OVERWRITE verified_orders SELECT trade_order_id, item_id, item_price, dt
    FROM verified_orders WHERE dt IN ('2022-06-20', '2022-06-21', '2022-06-22');