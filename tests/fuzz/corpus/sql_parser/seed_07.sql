CREATE TABLE t (col_1 INT, col_2 DOUBLE, payload STRING) USING qbeast
    OPTIONS ('columnsToIndex' = 'col_1,col_2', 'cubeSize' = '15000');