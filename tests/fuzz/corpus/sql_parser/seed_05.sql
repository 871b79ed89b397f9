INSERT OVERWRITE verified_orders PARTITION (dt = '2022-06-22')
    SELECT trade_order_id, item_id, item_price FROM verified_orders WHERE dt = '2022-06-22';